import { mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  baselineManifestFile,
  countRuns,
  createBaselineManifest,
  defaultBaselineLimits,
  validateBaselineDir,
  writeBaselineManifest,
} from "../../src/github/baseline-bundle.js";
import { writeRun } from "../action/fixtures.js";

async function baselineDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "bundle-"));
  for (const run of [0, 1, 2]) await writeRun(dir, "chat", run, 1);
  await writeRun(dir, "batch", 0, 1);
  return dir;
}

const manifest = () =>
  createBaselineManifest({
    commit: "a".repeat(40),
    ref: "refs/heads/main",
    runId: 7,
    runAttempt: 1,
    cells: ["chat", "batch"],
    now: new Date("2026-11-30T00:00:00Z"),
  });

describe("baseline bundle", () => {
  it("writes a manifest and validates a well-formed baseline", async () => {
    const dir = await baselineDir();
    await writeBaselineManifest(dir, manifest());
    expect(JSON.parse(await readFile(join(dir, baselineManifestFile), "utf8"))).toMatchObject({
      schemaVersion: 1,
      commit: "a".repeat(40),
      cells: ["batch", "chat"],
    });
    const validated = await validateBaselineDir(dir);
    expect(validated).toMatchObject({ runFiles: 4, cells: ["batch", "chat"] });
    expect(validated.manifest?.runId).toBe(7);
    expect(Object.fromEntries(await countRuns(dir))).toEqual({ chat: 3, batch: 1 });
  });

  it("rejects a run.json that breaks the schema, naming the file and field", async () => {
    const dir = await baselineDir();
    const file = join(dir, "chat", "run-1", "run.json");
    const run = JSON.parse(await readFile(file, "utf8"));
    run.latency.ttft.p95 = "<img src=x onerror=alert(1)>";
    await writeFile(file, JSON.stringify(run));
    await expect(validateBaselineDir(dir)).rejects.toThrow(
      "baseline chat/run-1/run.json: field latency.ttft.p95:",
    );
  });

  it("rejects a run filed under another cell's directory", async () => {
    const dir = await baselineDir();
    const file = join(dir, "chat", "run-0", "run.json");
    const run = JSON.parse(await readFile(file, "utf8"));
    run.cell = "batch";
    await writeFile(file, JSON.stringify(run));
    await expect(validateBaselineDir(dir)).rejects.toThrow('field cell: expected "chat"');
  });

  it("rejects a run.json whose fields contradict each other (failed = 10 x total)", async () => {
    const dir = await baselineDir();
    const file = join(dir, "chat", "run-1", "run.json");
    const run = JSON.parse(await readFile(file, "utf8"));
    run.requests.failed = 10 * run.requests.total;
    run.requests.errorsByKind = { http_500: run.requests.failed };
    await writeFile(file, JSON.stringify(run));
    await expect(validateBaselineDir(dir)).rejects.toThrow(
      "baseline chat/run-1/run.json: field requests.total: 50, but completed (50) + failed (500) = 550 (expected equal)",
    );
  });

  it("rejects symlinks, oversize baselines, bad manifests and empty ones", async () => {
    const linked = await baselineDir();
    await symlink("/etc/hostname", join(linked, "chat", "run-0", "server.log.link"));
    await expect(validateBaselineDir(linked)).rejects.toThrow("symbolic links are not allowed");

    const big = await baselineDir();
    await expect(validateBaselineDir(big, { ...defaultBaselineLimits, maxTotalBytes: 1000 })).rejects.toThrow(
      "larger than 1000 bytes",
    );
    await expect(validateBaselineDir(big, { ...defaultBaselineLimits, maxFiles: 3 })).rejects.toThrow(
      "more than 3 files",
    );

    const forged = await baselineDir();
    await writeFile(
      join(forged, baselineManifestFile),
      JSON.stringify({ ...manifest(), commit: "not-a-sha" }),
    );
    await expect(validateBaselineDir(forged)).rejects.toThrow(
      `baseline ${baselineManifestFile}: field commit: expected a full commit sha`,
    );

    const empty = await mkdtemp(join(tmpdir(), "bundle-empty-"));
    await mkdir(join(empty, "chat"));
    await expect(validateBaselineDir(empty)).rejects.toThrow("no <cell>/run-<k>/run.json file found");
  });
});
