import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { runCells } from "../../../src/app/run-cells.js";
import { settingsFromConfig } from "../../../src/compare/index.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { requestRecordSchema } from "../../../src/runner/request-schema.js";
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

/** A greedy-output cell beside the usual ignore_eos sampling: its requests go out greedy anyway. */
const config = testConfig(
  [
    {
      name: "quality",
      dataset: {
        type: "synthetic",
        input_tokens: { distribution: "uniform", min: 8, max: 40 },
        output_tokens: 48,
      },
      load: { type: "concurrency", concurrency: 4 },
      size: { requests: 200 },
      warmup: { requests: 0 },
    },
  ],
  {
    sampling: { temperature: 0.7, ignore_eos: true },
    quality: { greedy: { cells: ["quality"], logprobs: 2 } },
  },
);

async function measure(set: Record<string, number | boolean>) {
  const sim = await startSimulator({
    profile: "noiseless",
    set: { eos_mean_tokens: 30, ...set },
    model: "m",
  });
  sims.push(sim);
  const dir = mkdtempSync(join(tmpdir(), "vpg-greedy-"));
  dirs.push(dir);
  const result = await runCells({
    outbound: noSecrets,
    config,
    provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
    outDir: dir,
    baseDir: dir,
    runs: 2,
  });
  return { dir, records: result.runs.map((run, i) => runRecordFromRunFile(run.file, `${dir}/run-${i}`)) };
}

function compare(baseline: { records: unknown[] }, candidate: { records: unknown[] }) {
  return compareAndRender({
    baseline: baseline.records as never,
    candidate: candidate.records as never,
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date(0),
  });
}

describe("the greedy-output check against the simulator", () => {
  it("keeps each prompt's text and logprobs, sent greedy, and passes the same model", async () => {
    const baseline = await measure({});
    const candidate = await measure({});
    const lines = readFileSync(join(baseline.dir, "quality", "run-0", "requests.jsonl"), "utf8")
      .trim()
      .split("\n");
    const records = lines.map((line) => requestRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(200);
    expect(records.filter((record) => record.output!.text.length > 0).length).toBeGreaterThan(150);
    for (const record of records) {
      // One token and one logprob per output token (the EOS has no text), as the server spelled them.
      expect(record.output!.tokens!.join("")).toBe(record.output!.text);
      // Under load the simulator may merge many tokens into one chunk; usage beyond 16 tokens a chunk is
      // then not believed and outputTokens counts chunks (runner/request-record.ts checkUsage).
      if (!record.usageIssue) expect(record.output!.tokens).toHaveLength(record.outputTokens!);
      expect(record.output!.logprobs!.every((lp) => lp !== null && lp <= 0)).toBe(true);
    }
    // EOS honoured although sampling says ignore_eos: the lengths vary.
    expect(baseline.records[0]!.guards!.ignoreEos).toBe(false);
    expect(baseline.records[0]!.guards!.finish.stop).toBeGreaterThan(0);
    const { verdict } = compare(baseline, candidate);
    const check = verdict.quality!.greedy![0]!;
    expect(check.tokenSource).toBe("server");
    expect(check.candidate.prompts).toBe(200);
    expect(check.candidate.changedShare).toBe(0);
    expect(check.candidate.logprobDrift).toBe(0);
    expect(check.baselineNoise!.changedShare).toBe(0);
    expect(check.verdict).toBe("within-tolerance");
    expect(verdict.verdict).not.toBe("regression");
  }, 120_000);

  it("10% of prompts answered differently is a regression, with the worst examples in the report", async () => {
    const baseline = await measure({});
    const candidate = await measure({ quality_changed_share: 0.1, speed_factor: 0.8 });
    const { verdict, reportMarkdown } = compare(baseline, candidate);
    const check = verdict.quality!.greedy![0]!;
    expect(check.candidate.changedShare).toBeGreaterThan(0.05);
    expect(check.candidate.changedShare).toBeLessThan(0.15);
    expect(check.verdict).toBe("regression");
    expect(check.reasons[0]).toMatch(/outputs changed \(baseline run to run: 0\.0%/);
    expect(check.examples).toHaveLength(3);
    expect(verdict.verdict).toBe("regression");
    expect(reportMarkdown).toContain("### Greedy outputs");
    expect(reportMarkdown).toContain("Most-changed outputs: quality");
    // The same-length change is invisible to the guards.
    expect(verdict.quality!.guards.every((g) => g.verdict === "within-tolerance")).toBe(true);
  }, 120_000);

  it("the same tokens with drifting logprobs are a regression beyond max_logprob_drift", async () => {
    const baseline = await measure({});
    const candidate = await measure({ logprob_drift: 0.2 });
    const check = compare(baseline, candidate).verdict.quality!.greedy![0]!;
    expect(check.candidate.changedShare).toBe(0);
    expect(check.candidate.logprobDrift).toBeCloseTo(0.2, 9);
    expect(check.verdict).toBe("regression");
    expect(check.reasons.join(" ")).toMatch(/logprobs moved 0\.200 nats/);
  }, 120_000);
});
