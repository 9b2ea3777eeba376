import { describe, expect, it } from "vitest";
import type { HistoryRecord } from "../../../src/compare/history/history.js";
import { mainAlreadyRegressed, scanChangePoints } from "../../../src/compare/history/history-analysis.js";
import type { Comparison } from "../../../src/compare/verdict/verdict-schema.js";
import type { MetricName } from "../../../src/config/metric-names.js";
import { boxMuller, mulberry32 } from "../../../src/util/random.js";
import { commitOf, record, session } from "./history-fixtures.js";

/** Sessions 1..n of 3 runs each; from session `stepAt` on, `metrics` move by `step`. */
function history(n: number, stepAt: number, step: number, metrics: MetricName[], seed = 11): HistoryRecord[] {
  const random = mulberry32(seed);
  const noise = () => 0.01 * boxMuller(Math.max(random(), 1e-12), random());
  const records: HistoryRecord[] = [];
  for (let id = 1; id <= n; id++) {
    for (const metric of ["ttft_p95", "ttft_p50", "output_throughput"] as MetricName[]) {
      const factor = id >= stepAt && metrics.includes(metric) ? step : 1;
      const level = metric === "output_throughput" ? 900 : 100;
      records.push(
        record(
          session(id),
          [0, 1, 2].map(() => level * factor * Math.exp(noise())),
          { metric },
        ),
      );
    }
  }
  return records;
}

function comparison(metric: MetricName, ratio: number, higherIsBetter = false): Comparison {
  return {
    cell: "chat",
    metric,
    judgedOn: null,
    gated: true,
    higherIsBetter,
    tolerance: 0.05,
    baseline: 100,
    candidate: 100 * ratio,
    ratio,
    ci: [ratio * 0.98, ratio * 1.02],
    ciLevels: [0.01, 0.01],
    ci90: [ratio * 0.98, ratio * 1.02],
    p: 0.001,
    pRaw: 0.001,
    pChange: 0.001,
    detectableChange: 0.05,
    verdict: "regression",
    note: null,
    runs: { baseline: 5, candidate: 5 },
    crossCheck: null,
  };
}

describe("scanChangePoints", () => {
  const gated: MetricName[] = ["ttft_p95", "ttft_p50", "output_throughput"];

  it("reports a step once, when the session that makes it detectable arrives, with the commits either side", () => {
    const records = history(24, 20, 1.1, ["ttft_p95", "ttft_p50"]);
    const scan = scanChangePoints(records, gated, { window: 40 });
    const p95 = scan.changePoints.find((cp) => cp.metric === "ttft_p95");
    expect(p95).toBeDefined();
    expect(p95?.lastBefore.id).toBe("19-1");
    expect(p95?.firstAfter.id).toBe("20-1");
    expect(p95?.firstAfter.commit).toBe(commitOf(20));
    expect(p95?.ratio).toBeGreaterThan(1.08);
    expect(p95?.ratioLow).toBeLessThan(p95!.ratio);
    expect(p95?.ratioHigh).toBeGreaterThan(p95!.ratio);
    expect(p95?.worse).toBe(true);
    expect(p95?.movedWith).toEqual(["ttft_p50"]);
    expect(scan.changePoints.some((cp) => cp.metric === "output_throughput")).toBe(false);
    // The first session that shows it reports it; the next ones do not again.
    const firstSeen = [...Array(25).keys()].find(
      (n) =>
        n >= 8 &&
        scanChangePoints(history(n, 20, 1.1, ["ttft_p95"]), ["ttft_p95"], { window: 40 }).changePoints.some(
          (cp) => cp.isNew,
        ),
    );
    expect(firstSeen).toBeDefined();
    const later = scanChangePoints(history(firstSeen! + 1, 20, 1.1, ["ttft_p95"]), ["ttft_p95"], {
      window: 40,
    });
    expect(later.changePoints.map((cp) => cp.isNew)).toEqual([false]);
  });

  it("marks a throughput drop as worse and finds nothing in a flat history", () => {
    const drop = scanChangePoints(history(26, 15, 0.9, ["output_throughput"]), gated, { window: 40 });
    expect(drop.changePoints.map((cp) => [cp.metric, cp.worse])).toEqual([["output_throughput", true]]);
    expect(scanChangePoints(history(40, 99, 1, []), gated, { window: 40 }).changePoints).toEqual([]);
  });
});

describe("mainAlreadyRegressed", () => {
  // The stored baseline is session 16 (commit "6..."), older than main's tip; main stepped at session 20.
  const records = history(26, 20, 1.1, ["ttft_p95"]);
  const baselineInfo = { commit: commitOf(16) };

  it("explains a regression that only reproduces main's level, naming where main stepped", () => {
    const result = mainAlreadyRegressed(
      { comparisons: [comparison("ttft_p95", 1.11)], baselineInfo },
      records,
    );
    expect(result.onlyReproduces).toBe(true);
    const [entry] = result.explained;
    expect(entry?.mainRatio).toBeGreaterThan(1.08);
    expect(entry?.mainLow).toBeGreaterThan(1.05);
    expect(entry?.lastBefore.id).toBe("19-1");
    expect(entry?.firstAfter.id).toBe("20-1");
    expect(entry?.sessionsSince).toBe(10);
  });

  it("blames the pull request when it is worse than main's level by more than the tolerance", () => {
    const result = mainAlreadyRegressed(
      { comparisons: [comparison("ttft_p95", 1.25)], baselineInfo },
      records,
    );
    expect(result.explained).toEqual([]);
    expect(result.onlyReproduces).toBe(false);
  });

  it("explains nothing when main did not move, or when the baseline's commit is not in the history", () => {
    const flat = mainAlreadyRegressed({ comparisons: [comparison("ttft_p50", 1.1)], baselineInfo }, records);
    expect(flat.onlyReproduces).toBe(false);
    const unknown = mainAlreadyRegressed(
      { comparisons: [comparison("ttft_p95", 1.1)], baselineInfo: { commit: "f".repeat(40) } },
      records,
    );
    expect(unknown.explained).toEqual([]);
  });

  it("is partial when one regression is main's and another the pull request's", () => {
    const result = mainAlreadyRegressed(
      { comparisons: [comparison("ttft_p95", 1.1), comparison("ttft_p50", 1.2)], baselineInfo },
      records,
    );
    expect(result.explained.map((e) => e.metric)).toEqual(["ttft_p95"]);
    expect(result.onlyReproduces).toBe(false);
  });
});
