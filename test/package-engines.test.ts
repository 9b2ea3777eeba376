import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * `npm ci` warns (EBADENGINE) about every locked package whose `engines.node` excludes the Node running
 * it. CI runs Node 20 (package.json `engines`: >=20.19.0) and the action runs on node24: every package
 * npm installs on Linux must admit both. Platform binaries of other systems (optional, never installed
 * here) are skipped.
 */

type Version = [number, number, number];

function parseVersion(text: string): { version: Version; parts: number } {
  const parts = text
    .replace(/^v/, "")
    .split(".")
    .filter((part) => part !== "x" && part !== "*" && part !== "");
  const nums = parts.map(Number);
  return { version: [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 0], parts: nums.length };
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The subset of npm's range grammar that engines fields use: ||, >=, <=, >, <, ^, x-ranges. */
function satisfies(node: string, range: string): boolean {
  const v = parseVersion(node).version;
  return range.split("||").some((set) => {
    const comparators = set
      .trim()
      .replace(/(>=|<=|>|<|\^)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    return comparators.every((comparator) => {
      const match = /^(>=|<=|>|<|\^)?(.+)$/.exec(comparator);
      if (!match) throw new Error(`unreadable engines range "${range}"`);
      const op = match[1] ?? "";
      const { version: bound, parts } = parseVersion(match[2]!);
      const c = compare(v, bound);
      if (op === ">=") return c >= 0;
      if (op === "<=") return c <= 0;
      if (op === ">") return c > 0;
      if (op === "<") return c < 0;
      if (op === "^") return c >= 0 && (bound[0] > 0 ? v[0] === bound[0] : v[0] === 0 && v[1] === bound[1]);
      // x-range: "14" is 14.x, "0.8.x" is 0.8.x.
      return v.slice(0, parts).every((n, i) => n === bound[i]);
    });
  });
}

describe("package-lock.json engines", () => {
  it("reads the ranges the lock holds", () => {
    expect(satisfies("20.19.0", "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies("20.19.0", ">=22")).toBe(false);
    expect(satisfies("20.19.0", ">=16 || 14 >=14.17")).toBe(true);
    expect(satisfies("14.18.0", ">=16 || 14 >=14.17")).toBe(true);
    expect(satisfies("24.0.0", "^20.0.0 || ^22.0.0 || >=24.0.0")).toBe(true);
    expect(satisfies("23.0.0", "^20.0.0 || ^22.0.0 || >=24.0.0")).toBe(false);
    expect(satisfies("20.19.0", ">= 20")).toBe(true);
  });

  it("every package npm installs on Linux admits Node 20.19 (CI) and Node 24 (the action's runtime)", () => {
    const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8")) as {
      packages: Record<
        string,
        { version?: string; optional?: boolean; os?: string[]; engines?: { node?: string } }
      >;
    };
    const offending: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = entry.engines?.node;
      if (path === "" || typeof range !== "string") continue;
      if (entry.optional && entry.os && !entry.os.includes("linux")) continue;
      if (entry.optional && /binding-(android|darwin|freebsd|win32|openharmony|wasm32)/.test(path)) continue;
      for (const node of ["20.19.0", "24.0.0"])
        if (!satisfies(node, range))
          offending.push(`${path}@${entry.version}: engines.node "${range}" excludes ${node}`);
    }
    expect(offending).toEqual([]);
  });
});
