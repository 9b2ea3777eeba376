import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeRunFile, type RunSpec } from "../../bench/kit/run-files.js";
import type { RunFile } from "../../src/metrics/run-schema.js";

/** The compare tests' fixtures: the bench kit's synthetic run files, written as results directories. */
export {
  baseFingerprint,
  gaussian,
  makeRunFile,
  noisyRuns,
  type RunSpec,
  seeded,
} from "../../bench/kit/run-files.js";

/** Writes runs as DIR/<cell>/run-<k>/run.json, the layout `run` produces. */
export async function writeResultsDir(dir: string, runs: readonly RunFile[]): Promise<string> {
  for (const run of runs) {
    const runDir = join(dir, run.cell, `run-${run.run}`);
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, "run.json"), JSON.stringify(run, null, 2));
  }
  return dir;
}

/** Runs with exactly these slowdown factors, for tests that need a precise effect. */
export function runsWithFactors(factors: readonly number[], spec: RunSpec = {}): RunFile[] {
  return factors.map((slowdown, run) => makeRunFile({ ...spec, run, slowdown }));
}

export const steadyFactors = [1, 1.004, 0.996, 1.002, 0.998, 1, 1.003, 0.997, 1.001, 0.999];
