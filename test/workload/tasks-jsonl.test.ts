import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCells } from "../../src/app/run-cells.js";
import { datasetSchema, type FileDatasetConfig } from "../../src/config/schema.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { InputError } from "../../src/util/errors.js";
import { readDatasetFile } from "../../src/workload/dataset-file.js";
import { noSecrets } from "../job-outbound.js";
import { testConfig } from "../runner/helpers/run-config.js";

let dir: string;
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function file(lines: string[]): string {
  dir = mkdtempSync(join(tmpdir(), "vpg-tasks-jsonl-"));
  const path = join(dir, "tasks.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const read = (path: string) =>
  readDatasetFile({
    dataset: datasetSchema.parse({ type: "tasks_jsonl", path }) as FileDatasetConfig,
    baseDir: dir,
    field: "cells[0].dataset",
    seed: 1,
  });

describe("tasks_jsonl files", () => {
  it("reads each line's prompt, reference and scorer", async () => {
    const path = file([
      JSON.stringify({
        prompt: "What is 2 + 3? Answer with the number only.",
        reference: 5,
        scorer: "numeric",
      }),
      JSON.stringify({ prompt: "Capital of France?", reference: "Paris", scorer: "contains" }),
      JSON.stringify({ prompt: "Say yes", reference: "yes" }),
      JSON.stringify({ prompt: "Hex?", reference: "x", scorer: "regex", pattern: "0x[0-9a-f]+" }),
    ]);
    const { entries } = await read(path);
    expect(entries.map((e) => e.task)).toEqual([
      { reference: "5", scorer: { kind: "numeric", tolerance: 0 } },
      { reference: "Paris", scorer: { kind: "contains" } },
      { reference: "yes", scorer: { kind: "exact" } },
      { reference: "x", scorer: { kind: "regex", pattern: "0x[0-9a-f]+" } },
    ]);
  });

  it("refuses a line without a reference, naming the file, the line and the field", async () => {
    const path = file([
      JSON.stringify({ prompt: "a", reference: "b" }),
      JSON.stringify({ prompt: "no answer here" }),
    ]);
    await expect(read(path)).rejects.toThrow(InputError);
    await expect(read(path)).rejects.toThrow(
      /tasks\.jsonl:2\.reference: expected the reference answer \(a string or a number\), got null/,
    );
  });

  it("refuses a scorer that cannot run before anything is measured", async () => {
    const badPattern = file([
      JSON.stringify({ prompt: "a", reference: "b", scorer: "regex", pattern: "([" }),
    ]);
    await expect(read(badPattern)).rejects.toThrow(
      /tasks\.jsonl:1: regex scorer: "\(\[" is not a regular expression/,
    );
    rmSync(dir, { recursive: true, force: true });
    const noNumber = file([JSON.stringify({ prompt: "a", reference: "five", scorer: "numeric" })]);
    await expect(read(noNumber)).rejects.toThrow(
      /tasks\.jsonl:1: numeric scorer: the reference "five" has no number/,
    );
    rmSync(dir, { recursive: true, force: true });
    const unknown = file([JSON.stringify({ prompt: "a", reference: "b", scorer: "fuzzy" })]);
    await expect(read(unknown)).rejects.toThrow(
      /tasks\.jsonl:1\.scorer: expected one of exact, contains, regex, numeric, got "fuzzy"/,
    );
  });

  it("scores the simulator's answers to the team's own tasks end to end", async () => {
    const lines = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        prompt: `What is ${i + 10} + ${2 * i}? Answer with the number only.`,
        reference: 3 * i + 10,
        scorer: "numeric",
      }),
    );
    const path = file(lines);
    sim = await startSimulator({ profile: "noiseless", set: { task_accuracy: 1 }, model: "m" });
    const config = testConfig([
      {
        name: "own",
        dataset: { type: "tasks_jsonl", path },
        load: { type: "concurrency", concurrency: 4 },
        size: { requests: 40 },
        warmup: { requests: 0 },
      },
    ]);
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
    });
    const outputs = result.runs[0]!.file.outputs!;
    expect(outputs).toHaveLength(40);
    expect(outputs.every((o) => o.task!.correct)).toBe(true);
    expect(outputs[3]!.text).toBe("19");
  }, 60_000);
});
