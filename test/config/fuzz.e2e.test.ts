import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { presetNames, presetText, serverKinds } from "../../src/config/presets.js";
import { mulberry32 } from "../../src/util/random.js";
import { cli } from "../cli/helpers.js";

// Seeded mutations of every example and every preset, run through `validate` as a user runs it (the CLI's
// entry, in-process): each must end in exit 0 or 2 with a message, never exit 1 or a stack trace. Fixed
// seed and count, so a failure reproduces and the test costs a few seconds at most.

// VPG_FUZZ_SEED explores other seeds locally; CI always runs the fixed one.
const seed = Number(process.env.VPG_FUZZ_SEED ?? 20_261_201);
const mutationsPerSource = 16;
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const work = mkdtempSync(join(tmpdir(), "vpg-config-fuzz-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sources: { name: string; text: string }[] = [
  ...readdirSync(join(repoRoot, "examples"))
    .filter((file) => file.endsWith(".yml"))
    .map((file) => ({
      name: `examples/${file}`,
      text: readFileSync(join(repoRoot, "examples", file), "utf8"),
    })),
  ...presetNames.flatMap((preset) =>
    serverKinds.map((kind) => ({
      name: `preset ${preset} (${kind})`,
      text: presetText(preset, kind, "schema.json"),
    })),
  ),
];

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Every path to a value in parsed YAML (mapping keys and list indices). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const found: (string | number)[][] = prefix.length > 0 ? [prefix] : [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      found.push(...paths(item, [...prefix, index]));
    });
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) found.push(...paths(item, [...prefix, key]));
  }
  return found;
}

function parentOf(root: unknown, path: readonly (string | number)[]): Record<string | number, unknown> {
  let node = root as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  return node;
}

const hugeNumbers = [1e15, 1e308, -1e15, 2 ** 53 + 2, -0, 0, 0.5, -1, Number.MAX_SAFE_INTEGER, 1e-300];
const unicode = ["💥", "\u202eevil", "z\u200bero", "nul\u0000byte", "\ud800", "ＦＵＬＬ", "é".repeat(300)];
const otherTypes: unknown[] = ["a string", 42, true, null, [], {}, [1, "two"], { nested: { deeper: 1 } }];

function nested(depth: number, random: Random): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = random() < 0.5 ? [value] : { k: value };
  return value;
}

/** Mutations of the parsed document, serialised back to YAML. */
const dataMutations: ((root: unknown, random: Random) => void)[] = [
  function deleteKey(root, random) {
    const path = pick(random, paths(root));
    const parent = parentOf(root, path);
    const key = path.at(-1)!;
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  },
  function swapType(root, random) {
    const path = pick(random, paths(root));
    parentOf(root, path)[path.at(-1)!] = pick(random, otherTypes);
  },
  function hugeNumber(root, random) {
    const numeric = paths(root).filter((path) => typeof parentOf(root, path)[path.at(-1)!] === "number");
    const path = pick(random, numeric.length > 0 ? numeric : paths(root));
    parentOf(root, path)[path.at(-1)!] = pick(random, hugeNumbers);
  },
  function deepNesting(root, random) {
    const path = pick(random, paths(root));
    parentOf(root, path)[path.at(-1)!] = nested(pick(random, [10, 63, 65, 300]), random);
  },
  function unicodeText(root, random) {
    const path = pick(random, paths(root));
    const parent = parentOf(root, path);
    const key = path.at(-1)!;
    if (!Array.isArray(parent) && random() < 0.5) {
      parent[`${String(key)}${pick(random, unicode)}`] = parent[key];
      delete parent[key];
    } else parent[key] = pick(random, unicode);
  },
  function manyKeys(root, random) {
    const path = pick(random, paths(root));
    const target = parentOf(root, path);
    const count = pick(random, [20, 500]);
    for (let index = 0; index < count; index++) (target as Record<string, unknown>)[`extra_${index}`] = index;
  },
];

/** Mutations of the text itself: what only YAML syntax can express. */
const textMutations: ((text: string, random: Random) => string)[] = [
  (text) =>
    `${text}\nx0: &x0 [a, a, a, a, a, a, a, a, a, a]\n${Array.from({ length: 8 }, (_, level) => `x${level + 1}: &x${level + 1} [${Array(10).fill(`*x${level}`).join(", ")}]`).join("\n")}\n`,
  (text) => `${text}\nname: *undefined_anchor\n`,
  (text) => `${text}\nname: &self { again: *self }\n`,
  (text) => text.replace(/^(\s*)(name|kind|type|version): (.*)$/m, "$1$2: $3\n$1$2: $3"),
  (text) => `${text}\nname: ${"[".repeat(2000)}${"]".repeat(2000)}\n`,
  (text, random) => text.slice(0, Math.floor(random() * text.length)),
  (text, random) => {
    const at = Math.floor(random() * text.length);
    return (
      text.slice(0, at) +
      pick(random, [
        "\t",
        ":",
        "- ",
        "{",
        "]",
        "&a ",
        "*a",
        "!!binary ",
        "!!set ",
        "!!timestamp ",
        "!custom ",
        "%YAML 1.1\n",
        "\u0000",
        "---\n",
        "? ",
      ]) +
      text.slice(at)
    );
  },
  (text) => text.replace(/\b(\d+)\b/, "1e999"),
  (text) => `${text}\n<<: { version: 2 }\n`,
];

function mutate(text: string, random: Random): string {
  if (random() < 0.6) {
    const root = parse(text) as unknown;
    const rounds = 1 + Math.floor(random() * 3);
    for (let round = 0; round < rounds; round++) pick(random, dataMutations)(root, random);
    return stringify(root);
  }
  return pick(random, textMutations)(text, random);
}

describe("config loader fuzz: validate ends in exit 0 or 2, never a crash", () => {
  it(`survives ${mutationsPerSource} seeded mutations of each of ${sources.length} examples and presets`, async () => {
    const random = mulberry32(seed);
    const outcomes = { valid: 0, invalid: 0 };
    for (const source of sources) {
      expect(parse(source.text), source.name).toBeTruthy();
      for (let index = 0; index < mutationsPerSource; index++) {
        const text = mutate(source.text, random);
        const file = join(work, "mutant.yml");
        writeFileSync(file, text);
        const result = await cli(["validate", "--config", file], { cwd: work });
        const context = `${source.name}, mutation ${index} (seed ${seed}):\n${text.slice(0, 2_000)}\n--- stderr:\n${result.stderr.slice(0, 2_000)}`;
        expect([0, 2], context).toContain(result.code);
        expect(result.stderr, context).not.toMatch(/unexpected error|\n\s+at .+:\d+:\d+\)?\n/);
        if (result.code === 2) {
          expect(result.stderr, context).toContain(file);
          outcomes.invalid++;
        } else outcomes.valid++;
      }
    }
    // The mutations reach both outcomes: a fuzzer whose every mutant is rejected tests little.
    expect(outcomes.valid).toBeGreaterThan(0);
    expect(outcomes.invalid).toBeGreaterThan(sources.length * mutationsPerSource * 0.3);
  }, 60_000);
});
