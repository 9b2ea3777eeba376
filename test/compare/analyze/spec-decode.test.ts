import { beforeAll, describe, expect, it } from "vitest";
import { runCellVirtually } from "../../../src/app/virtual-run.js";
import { compareRecords, settingsFromConfig } from "../../../src/compare/index.js";
import type { SpecDecodeCell } from "../../../src/compare/verdict/spec-decode-schema.js";
import type { VerdictFile } from "../../../src/compare/verdict/verdict-schema.js";
import { parseConfigText } from "../../../src/config/load.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { renderReports } from "../../../src/report/markdown.js";
import { applyOverrides, builtInProfile } from "../../../src/sim/index.js";

/**
 * Speculative decoding explained, on the simulator's spec-decode model (a drafter proposing 3 tokens a
 * step, each accepted with 0.8 at temperature 0) on virtual time: the runner's dispatcher and metrics,
 * the engine's own /metrics counters before and after each run, no HTTP and no host noise, each run its
 * own server start (its speed factor and step jitter). Two candidates move TPOT p95 by about a third:
 * one whose drafter accepts less (0.6), one whose steps cost more (step overhead 2 → 2.8 ms). The
 * decomposition must name the drafter for the first and the engine step for the second, each factor
 * with an interval that excludes no change where it moved and holds it where it did not.
 */
const configText = `version: 1
seed: 3
server: { kind: sim, profile: spec-decode }
model: { name: sim-model }
sampling: { temperature: 0, ignore_eos: true }
cells:
  - name: decode
    endpoint: completions
    dataset: { type: synthetic, input_tokens: 128, output_tokens: 96 }
    load: { type: concurrency, concurrency: 8 }
    size: { requests: 48 }
    warmup: { requests: 0 }
repeats: { min: 4, max: 4 }
`;
const { config } = parseConfigText(configText, "spec.yml", { env: {} });
const runsPerSide = 4;

async function measure(side: string, set: Record<string, number>, seedBase: number): Promise<RunRecord[]> {
  const profile = applyOverrides(builtInProfile("spec-decode"), set, "test");
  const cell = config.cells[0]!;
  const records: RunRecord[] = [];
  for (let run = 0; run < runsPerSide; run++) {
    const measured = await runCellVirtually({
      config,
      cell,
      profile,
      serverSeed: seedBase + run,
      runIndex: run,
      side,
    });
    records.push(runRecordFromRunFile(measured.file, `${side}/decode/run-${run}/run.json`));
  }
  return records;
}

function compare(baseline: RunRecord[], candidate: RunRecord[]): VerdictFile {
  return compareRecords({ baseline, candidate, mode: "interleaved", settings: settingsFromConfig(config) })
    .verdict;
}

describe("speculative decoding taken apart (simulator, virtual time)", () => {
  let baseline: RunRecord[];
  let lowAcceptance: RunRecord[];
  let drafter: VerdictFile;
  let steps: VerdictFile;
  beforeAll(async () => {
    baseline = await measure("baseline", {}, 100);
    lowAcceptance = await measure("drafter", { spec_decode_acceptance_t0: 0.6 }, 200);
    drafter = compare(baseline, lowAcceptance);
    steps = compare(baseline, await measure("steps", { step_overhead_ms: 2.8 }, 300));
  });

  const cellOf = (verdict: VerdictFile): SpecDecodeCell => {
    expect(verdict.specDecode).toHaveLength(1);
    return verdict.specDecode![0]!;
  };
  const tpot = (verdict: VerdictFile) => cellOf(verdict).decompositions.find((d) => d.metric === "tpot_p95")!;
  const throughput = (verdict: VerdictFile) =>
    cellOf(verdict).decompositions.find((d) => d.metric === "output_throughput")!;

  it("records each side's acceptance from the server's counters", () => {
    const cell = cellOf(drafter);
    // Three drafts accepted in a chain at p: L = 1 + p + p² + p³ (2.95 at 0.8, 2.18 at 0.6), slightly
    // less where a request's last steps have fewer drafts left.
    expect(cell.baseline.runs).toBe(runsPerSide);
    expect(cell.baseline.acceptanceLength!).toBeGreaterThan(2.7);
    expect(cell.baseline.acceptanceLength!).toBeLessThan(3.0);
    expect(cell.candidate.acceptanceLength!).toBeGreaterThan(2.0);
    expect(cell.candidate.acceptanceLength!).toBeLessThan(2.25);
    expect(cell.baseline.acceptanceRate!).toBeGreaterThan(0.55);
    expect(cell.candidate.acceptanceRate!).toBeLessThan(cell.baseline.acceptanceRate! - 0.1);
    // The acceptance is compared as an advisory metric, which the default gate does not block on.
    const rate = drafter.comparisons.find((c) => c.metric === "spec_decode_acceptance_length")!;
    expect(rate.gated).toBe(false);
    expect(rate.ratio!).toBeLessThan(0.8);
    expect(rate.ci90![1]).toBeLessThan(1);
  });

  it("names the drafter when acceptance fell, not the engine step", () => {
    const d = tpot(drafter);
    expect(d.change.ratio).toBeGreaterThan(1.2);
    expect(d.change.significant).toBe(true);
    // Acceptance length −26%, its whole interval below no change: the drafter.
    expect(d.acceptanceLength.ratio).toBeLessThan(0.8);
    expect(d.acceptanceLength.ci[1]).toBeLessThan(0.8);
    expect(d.acceptanceLength.role).toBe("main");
    // The step's own time did not move beyond a few percent either way.
    expect(d.perStep.kind).toBe("time-per-step");
    expect(d.perStep.ci[0]).toBeGreaterThan(0.95);
    expect(d.perStep.ci[1]).toBeLessThan(1.05);
    expect(d.perStep.role).not.toBe("main");
    expect(d.explainedBy).toBe("acceptance");
    // On the same runs the change is exactly the quotient of its factors.
    expect(d.change.ratio).toBeCloseTo(d.perStep.ratio / d.acceptanceLength.ratio, 10);
    const x = throughput(drafter);
    expect(x.perStep.kind).toBe("steps-per-second");
    expect(x.change.ratio).toBeCloseTo(x.perStep.ratio * x.acceptanceLength.ratio, 10);
    // More steps per request leave fewer prefills per step: the steps got a few percent more frequent,
    // beyond noise but a small part beside the acceptance.
    expect(Math.abs(Math.log(x.perStep.ratio))).toBeLessThan(
      0.25 * Math.abs(Math.log(x.acceptanceLength.ratio)),
    );
    expect(x.explainedBy).toBe("acceptance");
  });

  it("names the engine step when the steps cost more, not the drafter", () => {
    const d = tpot(steps);
    expect(d.change.ratio).toBeGreaterThan(1.2);
    expect(d.perStep.ratio).toBeGreaterThan(1.2);
    expect(d.perStep.ci[0]).toBeGreaterThan(1.15);
    expect(d.perStep.role).toBe("main");
    // The acceptance is the drafter's: unchanged but for the draws of the other server starts.
    expect(d.acceptanceLength.ci[0]).toBeGreaterThan(0.95);
    expect(d.acceptanceLength.ci[1]).toBeLessThan(1.05);
    expect(d.acceptanceLength.role).not.toBe("main");
    expect(d.explainedBy).toBe("step");
    const x = throughput(steps);
    expect(x.perStep.ratio).toBeLessThan(0.85);
    expect(x.explainedBy).toBe("step");
  });

  it("says it in both forms of the report", () => {
    // Intervals are kept on one line with no-break spaces; read them as spaces.
    const render = (verdict: VerdictFile) => {
      const { report, comment } = renderReports(verdict);
      return { report: report.replaceAll("\u00a0", " "), comment: comment.replaceAll("\u00a0", " ") };
    };
    const drafterReport = render(drafter);
    expect(drafterReport.report).toContain("### Speculative decoding");
    expect(drafterReport.report).toMatch(
      /\*\*decode\*\*: TPOT p95 \+\d+\.\d% \(\+[\d.]+ … \+[\d.]+%\): acceptance length −\d+\.\d% \(−[\d.]+ … −[\d.]+%\) \(the drafter\), time per step [+−]\d+\.\d% \([^)]*\) \((within noise|a small part)\)/,
    );
    expect(drafterReport.report).toContain("one draft round per step");
    expect(drafterReport.comment).toContain("Speculative decoding: acceptance and the engine step");
    expect(drafterReport.comment).toMatch(/\(the drafter\)/);
    const stepsReport = render(steps);
    expect(stepsReport.report).toMatch(
      /acceptance length [+−±]\d+\.\d% \([^)]*\) \((within noise|a small part)\), time per step \+\d+\.\d% \([^)]*\) \(slower steps\)/,
    );
  });

  it("leaves a cell without a drafter out, and an unchanged one out of the comment", () => {
    const same = compare(
      baseline,
      baseline.map((run) => ({ ...run, source: `again/${run.source}` })),
    );
    expect(same.specDecode).toHaveLength(1);
    expect(renderReports(same).comment).not.toContain("Speculative decoding");
    const plain = baseline.map((run) => ({
      ...run,
      metrics: { ...run.metrics, spec_decode_acceptance_length: null, spec_decode_acceptance_rate: null },
    }));
    expect(compare(plain, plain).specDecode).toBeUndefined();
  });

  it("gates the acceptance length when named, and skips it where no server speculates", () => {
    const gated = parseConfigText(
      configText.replace(
        "repeats:",
        "gate: { metrics: [tpot_mean, spec_decode_acceptance_length] }\nrepeats:",
      ),
      "gated.yml",
      { env: {} },
    ).config;
    const judge = (b: RunRecord[], c: RunRecord[]) =>
      compareRecords({ baseline: b, candidate: c, mode: "interleaved", settings: settingsFromConfig(gated) })
        .verdict;
    const acceptance = (verdict: VerdictFile) =>
      verdict.comparisons.find((c) => c.metric === "spec_decode_acceptance_length");
    const withoutDrafter = (runs: RunRecord[]) =>
      runs.map((run) => ({
        ...run,
        metrics: { ...run.metrics, spec_decode_acceptance_length: null, spec_decode_acceptance_rate: null },
      }));
    const fell = judge(baseline, lowAcceptance);
    expect(acceptance(fell)).toMatchObject({ gated: true, verdict: "regression" });
    // No drafter on either side: nothing to gate, not a gap in the inputs.
    const plain = withoutDrafter(baseline);
    const none = judge(
      plain,
      plain.map((run) => ({ ...run, source: `again/${run.source}` })),
    );
    expect(acceptance(none)).toBeUndefined();
    expect(none.verdict).toBe("pass");
    // A candidate that lost its drafter cannot pass on it.
    const lost = judge(baseline, withoutDrafter(lowAcceptance));
    expect(acceptance(lost)).toMatchObject({ gated: true, verdict: "inconclusive" });
  });
});
