import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { runCells } from "../../../src/app/run-cells.js";
import { settingsFromConfig } from "../../../src/compare/index.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
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

/** EOS honoured, greedy: the cell a quality regression shows in. */
const config = testConfig(
  [
    {
      name: "eos",
      dataset: { type: "synthetic", input_tokens: 16, output_tokens: 96 },
      load: { type: "concurrency", concurrency: 8 },
      size: { requests: 80 },
      warmup: { requests: 0 },
    },
  ],
  { sampling: { temperature: 0, ignore_eos: false }, repeats: { min: 3, max: 3, baseline: 3, block: 1 } },
);

async function measure(set: Record<string, number | boolean>) {
  const sim = await startSimulator({
    profile: "noiseless",
    set: { eos_mean_tokens: 40, ...set },
    model: "m",
  });
  sims.push(sim);
  const dir = mkdtempSync(join(tmpdir(), "vpg-guards-"));
  dirs.push(dir);
  const result = await runCells({
    outbound: noSecrets,
    config,
    provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
    outDir: dir,
    baseDir: dir,
    runs: 3,
  });
  return result.runs.map((run, index) => runRecordFromRunFile(run.file, `${dir}/run-${index}`));
}

function compare(baseline: Awaited<ReturnType<typeof measure>>, candidate: typeof baseline) {
  return compareAndRender({
    baseline,
    candidate,
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date(0),
  });
}

describe("quality guards against the simulator", () => {
  it("a faster candidate that truncates a third of its outputs is a regression, not an improvement", async () => {
    const baseline = await measure({});
    const candidate = await measure({ speed_factor: 0.6, quality_truncate_share: 0.35 });
    const { verdict, reportMarkdown } = compare(baseline, candidate);
    const length = verdict.quality!.guards.find((g) => g.metric === "output_tokens_mean")!;
    expect(length.verdict).toBe("regression");
    expect(length.candidate! / length.baseline!).toBeLessThan(0.85);
    expect(verdict.verdict).toBe("regression");
    expect(verdict.exitCode).toBe(1);
    expect(verdict.headline).toMatch(/^Regression: 1 quality check got worse beyond tolerance/);
    expect(verdict.headline).not.toMatch(/^Pass/);
    expect(reportMarkdown).toContain("### Quality guards");
    expect(reportMarkdown).toContain("no speed result here is an improvement");
  }, 120_000);

  it("garbage that never reaches EOS raises the share finished at max_tokens", async () => {
    const baseline = await measure({});
    const candidate = await measure({ quality_garbage_share: 0.3 });
    const { verdict } = compare(baseline, candidate);
    const share = verdict.quality!.guards.find((g) => g.metric === "finish_length_share")!;
    expect(share.verdict).toBe("regression");
    expect(share.candidate! - share.baseline!).toBeGreaterThan(0.2);
    expect(verdict.verdict).toBe("regression");
  }, 120_000);

  it("the same server on both sides passes every guard (greedy outputs repeat by prompt)", async () => {
    const baseline = await measure({});
    const candidate = await measure({});
    const { verdict } = compare(baseline, candidate);
    expect(verdict.quality!.guards.length).toBe(5);
    for (const guard of verdict.quality!.guards) expect(guard.verdict).toBe("within-tolerance");
    const length = verdict.quality!.guards.find((g) => g.metric === "output_tokens_mean")!;
    // Temperature 0: the outputs are a function of the prompt, so both sides' lengths are the same up to
    // requests whose usage the client did not believe (many tokens merged into one chunk under load).
    expect(Math.abs(length.candidate! / length.baseline! - 1)).toBeLessThan(0.05);
    expect(verdict.verdict).not.toBe("regression");
  }, 120_000);
});
