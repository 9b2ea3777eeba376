import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { runCells } from "../../../src/app/run-cells.js";
import { settingsFromConfig } from "../../../src/compare/index.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { baseUrlProvider } from "../../../src/server/base-url.js";
import { type RunningSimulator, startSimulator } from "../../../src/sim/index.js";
import { noSecrets } from "../../job-outbound.js";
import { testConfig } from "../../runner/helpers/run-config.js";

const sims: RunningSimulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const config = testConfig([
  {
    name: "tasks",
    dataset: { type: "tasks", count: 300 },
    load: { type: "concurrency", concurrency: 8 },
    size: { requests: 300 },
    warmup: { requests: 0 },
  },
]);

async function measure(set: Record<string, number>): Promise<RunRecord[]> {
  const sim = await startSimulator({ profile: "noiseless", set, model: "m" });
  sims.push(sim);
  const dir = mkdtempSync(join(tmpdir(), "vpg-tasks-"));
  dirs.push(dir);
  const result = await runCells({
    outbound: noSecrets,
    config,
    provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
    outDir: dir,
    baseDir: dir,
    runs: 1,
  });
  return result.runs.map((run, i) => runRecordFromRunFile(run.file, `${dir}/run-${i}`));
}

const compare = (baseline: RunRecord[], candidate: RunRecord[]) =>
  compareAndRender({
    baseline,
    candidate,
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date(0),
  });

describe("the task-accuracy check against the simulator", () => {
  it("scores each answer; 95% against 85% accuracy is a regression on the paired test", async () => {
    const baseline = await measure({ task_accuracy: 0.95 });
    const outputs = baseline[0]!.outputs!;
    expect(outputs).toHaveLength(300);
    const right = outputs.filter((o) => o.task!.correct).length / outputs.length;
    expect(right).toBeGreaterThan(0.9);
    expect(right).toBeLessThan(0.99);
    // A right answer is the reference itself (greedy, EOS after it).
    const sample = outputs.find((o) => o.task!.correct)!;
    expect(sample.text.trim().toLowerCase()).toBe(sample.task!.reference);
    const candidate = await measure({ task_accuracy: 0.85 });
    const { verdict, reportMarkdown } = compare(baseline, candidate);
    const check = verdict.quality!.tasks![0]!;
    expect(check.prompts).toBe(300);
    expect(check.baseline.accuracy - check.candidate.accuracy).toBeGreaterThan(0.05);
    expect(check.onlyBaseline).toBeGreaterThan(check.onlyCandidate);
    expect(check.baseline.wilson[0]).toBeLessThan(check.baseline.accuracy);
    expect(check.verdict).toBe("regression");
    expect(verdict.verdict).toBe("regression");
    expect(reportMarkdown).toContain("### Task accuracy");
  }, 120_000);

  it("the same model passes: every prompt is answered the same way", async () => {
    const baseline = await measure({});
    const candidate = await measure({ speed_factor: 0.9 });
    const check = compare(baseline, candidate).verdict.quality!.tasks![0]!;
    expect(check.onlyBaseline + check.onlyCandidate).toBe(0);
    expect(check.pRaw).toBe(1);
    expect(check.verdict).toBe("within-tolerance");
  }, 120_000);
});
