import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import type { RunFile } from "../../../src/metrics/run-schema.js";
import { runRecordFromVllmResult, vllmResultSchema } from "../../../src/metrics/vllm-result.js";
import { vllmResult } from "../../metrics/vllm-fixtures.js";
import {
  baseFingerprint,
  gaussian,
  makeRunFile,
  noisyRuns,
  runsWithFactors,
  seeded,
  steadyFactors,
} from "../fixtures.js";

const records = (runs: RunFile[], side: string) =>
  runs.map((run, i) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${i}/run.json`));
const now = new Date("2026-11-30T05:00:00Z");

function compare(
  baseline: RunRecord[],
  candidate: RunRecord[],
  tweak: (s: ReturnType<typeof defaultCompareSettings>) => void = () => {},
  mode: "stored" | "interleaved" = "interleaved",
) {
  const settings = defaultCompareSettings();
  tweak(settings);
  const outcome = compareAndRender({ baseline, candidate, settings, mode, now });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

const find = (outcome: ReturnType<typeof compare>, metric: string, cell = "chat") =>
  outcome.verdict.comparisons.find((c) => c.metric === metric && c.cell === cell)!;

describe("verdict rules", () => {
  it("passes an A/A comparison with no change", () => {
    const outcome = compare(records(noisyRuns(5, { seed: 1 }), "b"), records(noisyRuns(5, { seed: 2 }), "c"));
    expect(outcome.verdict.verdict).toBe("pass");
    expect(outcome.exitCode).toBe(0);
    expect(find(outcome, "ttft_p95").verdict).toBe("within-tolerance");
    expect(outcome.verdict.counts.gated).toBe(5);
    expect(outcome.verdict.nextLook).toBeNull();
  });

  it("blocks a 20% latency regression and says how big it is", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 3 }), "b"),
      records(noisyRuns(5, { seed: 4, shift: 1.2 }), "c"),
    );
    expect(outcome.verdict.verdict).toBe("regression");
    expect(outcome.exitCode).toBe(1);
    const ttft = find(outcome, "ttft_p95");
    expect(ttft.verdict).toBe("regression");
    expect(ttft.ratio).toBeGreaterThan(1.12);
    expect(ttft.ci![0]).toBeGreaterThan(1);
    // Throughput falls as latency rises: direction-aware, still a regression.
    expect(find(outcome, "output_throughput").verdict).toBe("regression");
    expect(outcome.verdict.impact[0]!.ttftP95Ms!.change).toBeGreaterThan(0);
    expect(outcome.verdict.impact[0]!.successfulPerHour!.change).toBeLessThan(0);
  });

  it("calls a clear speed-up an improvement and passes", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 5 }), "b"),
      records(noisyRuns(5, { seed: 6, shift: 0.8 }), "c"),
    );
    expect(outcome.verdict.verdict).toBe("pass");
    expect(find(outcome, "e2el_p95").verdict).toBe("improvement");
    expect(find(outcome, "output_throughput").verdict).toBe("improvement");
  });

  it("is inconclusive when noise hides a change near the tolerance, and asks for more runs", () => {
    const outcome = compare(
      records(noisyRuns(3, { seed: 7, sd: 0.08 }), "b"),
      records(noisyRuns(3, { seed: 8, sd: 0.08, shift: 1.05 }), "c"),
    );
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.exitCode).toBe(0);
    expect(outcome.verdict.nextLook).toMatchObject({
      runsPerSide: 5,
      addCandidateRuns: 2,
      addBaselineRuns: 2,
    });
    const failOnInconclusive = compare(
      records(noisyRuns(3, { seed: 7, sd: 0.08 }), "b"),
      records(noisyRuns(3, { seed: 8, sd: 0.08, shift: 1.05 }), "c"),
      (s) => {
        s.gate.fail_on = "inconclusive";
      },
    );
    expect(failOnInconclusive.exitCode).toBe(1);
  });

  it("stops asking for runs at repeats.max, and a stored baseline asks only for candidate runs", () => {
    const atMax = compare(
      records(noisyRuns(3, { seed: 7, sd: 0.08 }), "b"),
      records(noisyRuns(3, { seed: 8, sd: 0.08, shift: 1.05 }), "c"),
      (s) => {
        s.repeats = { min: 2, max: 3 };
      },
    );
    expect(atMax.verdict.verdict).toBe("inconclusive");
    expect(atMax.verdict.nextLook).toBeNull();
    const stored = compare(
      records(runsWithFactors(steadyFactors), "b"),
      records(runsWithFactors([0.92, 0.98, 1.04]), "c"),
      () => {},
      "stored",
    );
    expect(stored.verdict.verdict).toBe("inconclusive");
    expect(stored.verdict.nextLook).toMatchObject({
      runsPerSide: 5,
      addCandidateRuns: 2,
      addBaselineRuns: 0,
    });
  });

  it("does not ask for runs that cannot help: a stored baseline's drift does not shrink", () => {
    const base = records(runsWithFactors(steadyFactors), "b");
    const cand = records(runsWithFactors([1.035, 1.036, 1.034]), "c");
    const outcome = compare(base, cand, () => {}, "stored");
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.nextLook).toBeNull();
    expect(outcome.verdict.warnings.join()).toMatch(/session drift does not shrink with runs/);
    // The same data from one job (no drift term) is decisive.
    const interleaved = compare(base, cand);
    expect(interleaved.verdict.verdict).toBe("pass");
  });

  it("widens intervals in stored mode by the session drift", () => {
    const base = records(noisyRuns(5, { seed: 9 }), "b");
    const cand = records(noisyRuns(5, { seed: 10 }), "c");
    const interleaved = find(
      compare(base, cand, () => {}, "interleaved"),
      "ttft_p95",
    );
    const stored = compare(base, cand, () => {}, "stored");
    const storedTtft = find(stored, "ttft_p95");
    expect(storedTtft.ci![1] - storedTtft.ci![0]).toBeGreaterThan(interleaved.ci![1] - interleaved.ci![0]);
    expect(stored.verdict.mode).toBe("stored");
    expect(stored.verdict.settings.sessionDriftSd).toBe(0.02);
  });

  it("fails fail_on never only in the report, never in the exit code", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 3 }), "b"),
      records(noisyRuns(5, { seed: 4, shift: 1.2 }), "c"),
      (s) => {
        s.gate.fail_on = "never";
      },
    );
    expect(outcome.verdict.verdict).toBe("regression");
    expect(outcome.exitCode).toBe(0);
  });
});

describe("blocking family (Holm) and advisory metrics", () => {
  it("adjusts gated p-values across every cell", () => {
    const cells = ["a", "b", "c"];
    const base = cells.flatMap((cell, i) => records(noisyRuns(5, { seed: 20 + i, cell }), "b"));
    const cand = cells.flatMap((cell, i) => records(noisyRuns(5, { seed: 30 + i, cell, shift: 1.2 }), "c"));
    const outcome = compare(base, cand);
    const gated = outcome.verdict.comparisons.filter((c) => c.gated && c.metric !== "error_rate");
    expect(gated).toHaveLength(12);
    // Holm's adjusted p is never below the raw p, and the smallest is multiplied by the family size.
    for (const c of gated) expect(c.p!).toBeGreaterThanOrEqual(c.pRaw!);
    const smallest = gated.reduce((a, b) => (a.pRaw! < b.pRaw! ? a : b));
    // No request failed on either side: the three error-rate tests cannot reach any level (their
    // conditional test has one outcome), so they are left out and the family is the 12 latency and
    // throughput tests (Tarone; docs/compare.md "The gated family").
    expect(smallest.p!).toBeCloseTo(Math.min(1, smallest.pRaw! * 12), 10);
    expect(outcome.verdict.settings.gatedFamily!.regression).toEqual({
      total: 12,
      speed: 12,
      capacity: 0,
      guard: 0,
      task: 0,
      leftOut: 3,
    });
  });

  it("counts an error-rate test that can reach the level in the family", () => {
    const cells = ["a", "b", "c"];
    // 3 failed requests per run on each side: 15 per side and cell, so the test can reach any level.
    const base = cells.flatMap((cell, i) => records(noisyRuns(5, { seed: 20 + i, cell, failed: 3 }), "b"));
    const cand = cells.flatMap((cell, i) =>
      records(noisyRuns(5, { seed: 30 + i, cell, shift: 1.2, failed: 3 }), "c"),
    );
    const outcome = compare(base, cand);
    const gated = outcome.verdict.comparisons.filter((c) => c.gated && c.metric !== "error_rate");
    const smallest = gated.reduce((a, b) => (a.pRaw! < b.pRaw! ? a : b));
    expect(smallest.p!).toBeCloseTo(Math.min(1, smallest.pRaw! * 15), 10);
    expect(outcome.verdict.settings.gatedFamily!.regression.leftOut).toBe(0);
  });

  it("keeps non-gated metrics advisory (BH) and never blocks on them", () => {
    const base = records(noisyRuns(5, { seed: 40 }), "b");
    const cand = records(
      noisyRuns(5, { seed: 41 }).map((run) => ({
        ...run,
        latency: { ...run.latency, itl: { ...run.latency.itl, p99: run.latency.itl.p99! * 1.5 } },
      })),
      "c",
    );
    const outcome = compare(base, cand);
    const itl = find(outcome, "itl_p99");
    expect(itl.gated).toBe(false);
    expect(itl.verdict).toBe("regression");
    expect(outcome.verdict.verdict).toBe("pass");
  });

  it("makes a gated percentile advisory when a run has too few successful requests", () => {
    const base = records(noisyRuns(5, { seed: 42, completed: 150 }), "b");
    const cand = records(noisyRuns(5, { seed: 43, completed: 150, shift: 1.3 }), "c");
    const outcome = compare(base, cand, (s) => {
      s.gate.metrics = ["ttft_p95", "ttft_p50"];
    });
    const p95 = find(outcome, "ttft_p95");
    expect(p95.gated).toBe(false);
    expect(p95.note).toMatch(/needs >= 200 successful requests in every run \(fewest: 150\)/);
    expect(find(outcome, "ttft_p50").gated).toBe(true);
    expect(outcome.verdict.verdict).toBe("regression");
  });

  it("counts a depth bucket's own requests for the floor of its TTFT p95, not the run's", () => {
    // 500 completed requests per run, of which 40 at depth 4-7 and 300 at depth 1: the deep bucket's p95
    // of 40 requests must not be gated, the first turns' may.
    const withSessions = (runs: RunFile[], shift: number): RunFile[] =>
      runs.map((run) => {
        const ttft = run.latency.ttft.p95! * shift;
        const bucket = (name: "1" | "2_3" | "4_7" | "8_up", from: number, to: number | null, n: number) => ({
          bucket: name,
          from,
          to,
          requests: n,
          p50: n > 0 ? ttft / 2 : null,
          p95: n > 0 ? ttft : null,
        });
        return {
          ...run,
          sessions: {
            started: 100,
            completed: 100,
            requests: 500,
            throughput: 1,
            goodput: 1,
            duration: run.latency.e2el,
            cacheHitRate: 0.8,
            serverCacheHitRate: 0.8,
            ttftByDepth: [
              bucket("1", 1, 1, 300),
              bucket("2_3", 2, 3, 160),
              bucket("4_7", 4, 7, 40),
              bucket("8_up", 8, null, 0),
            ],
            contamination: { firstTurns: 100, aboveSharedPrefix: 0, flagged: false },
          },
        };
      });
    const base = records(withSessions(noisyRuns(5, { seed: 42, completed: 500 }), 1), "b");
    const cand = records(withSessions(noisyRuns(5, { seed: 43, completed: 500 }), 1.3), "c");
    const outcome = compare(base, cand, (s) => {
      s.gate.metrics = ["ttft_p95_depth_1", "ttft_p95_depth_4_7"];
    });
    const deep = find(outcome, "ttft_p95_depth_4_7");
    expect(deep.gated).toBe(false);
    expect(deep.note).toMatch(/needs >= 200 successful requests in every run \(fewest: 40\)/);
    expect(find(outcome, "ttft_p95_depth_1").gated).toBe(true);
    expect(find(outcome, "ttft_p95_depth_1").verdict).toBe("regression");
  });

  it("gates p95 once every run reaches the minimum", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 44, completed: 200 }), "b"),
      records(noisyRuns(5, { seed: 45, completed: 200 }), "c"),
    );
    expect(find(outcome, "ttft_p95").gated).toBe(true);
    expect(find(outcome, "ttft_p99").gated).toBe(false);
  });
});

describe("errors", () => {
  it("blocks a candidate above the absolute error-rate limit even when latency improved", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 50 }), "b"),
      records(noisyRuns(5, { seed: 51, shift: 0.8, failed: 30 }), "c"),
    );
    const errors = find(outcome, "error_rate");
    expect(errors.verdict).toBe("regression");
    expect(errors.note).toMatch(/above the 1\.00% limit/);
    expect(outcome.verdict.verdict).toBe("regression");
  });

  it("blocks a significant rise in errors below the limit", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 52 }), "b"),
      records(noisyRuns(5, { seed: 53, failed: 10 }), "c"),
      (s) => {
        s.gate.error_rate_limit = 0.5;
      },
    );
    expect(find(outcome, "error_rate").verdict).toBe("regression");
    expect(find(outcome, "error_rate").candidate).toBeCloseTo(10 / 1210, 10);
  });
});

describe("run health and comparability", () => {
  it("excludes client-bound and crashed runs and lists why", () => {
    const cand = noisyRuns(5, { seed: 60 });
    cand[1] = {
      ...cand[1]!,
      flags: { ...cand[1]!.flags, clientBound: true, clientBoundReason: "event loop lag 80 ms" },
    };
    cand[2] = { ...cand[2]!, flags: { ...cand[2]!.flags, serverCrashed: true, cutShort: true } };
    const outcome = compare(records(noisyRuns(5, { seed: 61 }), "b"), records(cand, "c"));
    expect(outcome.verdict.runs.excluded).toHaveLength(2);
    expect(outcome.verdict.runs.excluded[0]!.reasons[0]).toBe("client-bound: event loop lag 80 ms");
    expect(outcome.verdict.runs.excluded[1]!.reasons).toEqual([
      "server crashed during the run",
      "run cut short",
    ]);
    expect(outcome.verdict.cells[0]!.candidateRuns).toBe(3);
    expect(outcome.verdict.runs.used).toHaveLength(8);
  });

  it("never passes when every candidate run is excluded", () => {
    const cand = noisyRuns(3, { seed: 62, flags: { serverCrashed: true } });
    const outcome = compare(records(noisyRuns(3, { seed: 63 }), "b"), records(cand, "c"));
    expect(outcome.verdict.verdict).toBe("error");
    expect(outcome.exitCode).toBe(1);
    expect(outcome.verdict.cells[0]).toMatchObject({
      status: "missing-candidate",
      note: "every candidate run of this cell was excluded",
    });
    // Excluded runs are replaced: 3 measured, none usable, so 5 more reach the first look (5).
    expect(outcome.verdict.nextLook).toMatchObject({ runsPerSide: 8, addCandidateRuns: 5 });
  });

  it("is inconclusive, not pass, with a single usable run", () => {
    const outcome = compare(
      records(noisyRuns(3, { seed: 64 }), "b"),
      records(noisyRuns(1, { seed: 65 }), "c"),
    );
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.cells[0]!.status).toBe("too-few-runs");
    // Interleaved: more runs do help, so they are asked for, and no "would not settle" is claimed.
    expect(outcome.verdict.nextLook).toMatchObject({ runsPerSide: 5 });
    expect(outcome.verdict.settle).toBeNull();
  });

  it("a missing cell is an error", () => {
    const outcome = compare(
      records([...noisyRuns(3, { seed: 66 }), ...noisyRuns(3, { seed: 67, cell: "long" })], "b"),
      records(noisyRuns(3, { seed: 68 }), "c"),
    );
    expect(outcome.verdict.verdict).toBe("error");
    expect(outcome.verdict.cells.find((c) => c.name === "long")!.status).toBe("missing-candidate");
  });

  it("reports conditions that differ outside the allowed differences as not comparable", () => {
    const changed = { ...baseFingerprint, model: { ...baseFingerprint.model, revision: "def456" } };
    const base = records(noisyRuns(5, { seed: 70, sd: 0.01 }), "b");
    const cand = records(noisyRuns(5, { seed: 71, sd: 0.01, fingerprint: changed }), "c");
    const outcome = compare(base, cand);
    expect(outcome.verdict.verdict).toBe("not-comparable");
    expect(outcome.exitCode).toBe(1);
    expect(outcome.verdict.fingerprints.differences).toEqual([
      {
        field: "model.revision",
        cells: ["chat"],
        baseline: "abc123",
        candidate: "def456",
        allowed: false,
        informational: false,
      },
    ]);
    const warned = compare(base, cand, (s) => {
      s.gate.on_not_comparable = "warn";
    });
    expect(warned.verdict.verdict).toBe("pass");
    expect(warned.verdict.warnings.join()).toMatch(/model\.revision/);
  });

  it("accepts differences declared in allowed_differences, by prefix", () => {
    const changed = {
      ...baseFingerprint,
      server: { image: "vllm/vllm-openai@sha256:bbbb", args: ["--max-num-seqs", "128"] },
    };
    const outcome = compare(
      records(noisyRuns(5, { seed: 72, sd: 0.01 }), "b"),
      records(noisyRuns(5, { seed: 73, sd: 0.01, fingerprint: changed }), "c"),
      (s) => {
        s.gate.allowed_differences = ["server"];
      },
    );
    expect(outcome.verdict.verdict).toBe("pass");
    expect(outcome.verdict.fingerprints.differences.map((d) => [d.field, d.allowed])).toEqual([
      ["server.args", true],
      ["server.image", true],
    ]);
  });
});

describe("mixed results", () => {
  it("calls out throughput up while TTFT got worse", () => {
    const base = records(noisyRuns(5, { seed: 80, sd: 0.01 }), "b");
    const cand = records(noisyRuns(5, { seed: 81, sd: 0.01, ttftFactor: 1.1, throughputFactor: 1.1 }), "c");
    const outcome = compare(base, cand);
    expect(outcome.verdict.mixed).toEqual([
      { cell: "chat", better: ["request_throughput", "output_throughput"], worse: ["ttft_p50", "ttft_p95"] },
    ]);
    expect(outcome.verdict.verdict).toBe("regression");
  });
});

describe("mixed results across cells", () => {
  it("pairs a regression in one cell with an improvement in another", () => {
    const base = [
      ...records(noisyRuns(5, { seed: 82, sd: 0.01, cell: "rag" }), "b"),
      ...records(noisyRuns(5, { seed: 83, sd: 0.01, cell: "longgen" }), "b"),
    ];
    const cand = [
      ...records(noisyRuns(5, { seed: 84, sd: 0.01, cell: "rag", ttftFactor: 1.3 }), "c"),
      ...records(noisyRuns(5, { seed: 85, sd: 0.01, cell: "longgen", shift: 0.8 }), "c"),
    ];
    const outcome = compare(base, cand);
    const across = outcome.verdict.mixed.find((entry) => entry.cell === "(across cells)");
    expect(across?.worse).toEqual(expect.arrayContaining(["rag/ttft_p95"]));
    expect(across?.better).toEqual(expect.arrayContaining(["longgen/e2el_p95"]));
    expect(outcome.reportMarkdown).toMatch(/Mixed result/);
    expect(outcome.reportMarkdown).toMatch(/better .*longgen E2E latency p95/);
  });

  it("is not reported when every decided change points the same way", () => {
    const base = records(noisyRuns(5, { seed: 86, sd: 0.01, cell: "rag" }), "b");
    const cand = records(noisyRuns(5, { seed: 87, sd: 0.01, cell: "rag", shift: 1.3 }), "c");
    const outcome = compare(base, cand);
    // Latency up and throughput down: several changes are decided, every one of them worse.
    const decided = outcome.verdict.comparisons.filter(
      (c) => c.verdict === "regression" || c.verdict === "improvement",
    );
    expect(decided.map((c) => c.metric)).toEqual(
      expect.arrayContaining(["ttft_p95", "e2el_p95", "output_throughput"]),
    );
    expect(decided.every((c) => c.verdict === "regression")).toBe(true);
    expect(outcome.verdict.mixed).toEqual([]);
  });
});

describe("cross-checks", () => {
  it("adds Mann-Whitney and Hodges-Lehmann at >= 5 runs per side only", () => {
    const five = compare(
      records(noisyRuns(5, { seed: 90 }), "b"),
      records(noisyRuns(5, { seed: 91, shift: 1.2 }), "c"),
    );
    expect(find(five, "ttft_p95").crossCheck!.mannWhitneyP).toBeCloseTo(1 / 252, 6);
    expect(find(five, "ttft_p95").crossCheck!.hodgesLehmannRatio).toBeGreaterThan(1.1);
    const three = compare(records(noisyRuns(3, { seed: 90 }), "b"), records(noisyRuns(3, { seed: 91 }), "c"));
    expect(find(three, "ttft_p95").crossCheck).toBeNull();
  });
});

describe("cell pairing", () => {
  it("pairs one differently-labelled cell per side and says so", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 300, cell: "main" }), "b"),
      records(noisyRuns(5, { seed: 301, cell: "pr-42" }), "c"),
    );
    expect(outcome.verdict.cells.map((c) => c.name)).toEqual(["main"]);
    expect(outcome.verdict.warnings).toContain(
      'one cell per side with different names: candidate "pr-42" compared with baseline "main"',
    );
  });
});

describe("mixed results within tolerance", () => {
  it("flags a TTFT regression next to a significant throughput gain below the tolerance", () => {
    // The FP8 KV-cache pattern: throughput +3% (significant, within the 5% tolerance), TTFT +12%.
    const base = records(runsWithFactors(steadyFactors), "b");
    const cand = records(runsWithFactors(steadyFactors, { ttftFactor: 1.12, throughputFactor: 1.03 }), "c");
    const outcome = compare(base, cand);
    expect(find(outcome, "output_throughput").verdict).toBe("within-tolerance");
    expect(find(outcome, "ttft_p95").verdict).toBe("regression");
    expect(outcome.verdict.mixed).toEqual([
      { cell: "chat", better: ["request_throughput", "output_throughput"], worse: ["ttft_p50", "ttft_p95"] },
    ]);
  });
});

describe("the tolerance means what users read", () => {
  it("blocks a true change at the tolerance at most α of the time (seeded Monte-Carlo)", () => {
    // Old rule (significant vs 0 and point estimate beyond the tolerance) blocked +5% ~20-39% of the time.
    let blocked = 0;
    const prs = 300;
    for (let i = 0; i < prs; i++) {
      const outcome = compare(
        records(noisyRuns(10, { seed: 5000 + i }), "b"),
        records(noisyRuns(10, { seed: 9000 + i, shift: 1.05 }), "c"),
      );
      if (outcome.verdict.verdict === "regression") blocked++;
    }
    expect(blocked / prs).toBeLessThanOrEqual(0.05);
  });

  it("a point estimate beyond the tolerance that is not significantly beyond it is not a regression", () => {
    const outcome = compare(
      records(runsWithFactors(steadyFactors), "b"),
      records(runsWithFactors(steadyFactors.map((f) => f * 1.056)), "c"),
    );
    const ttft = find(outcome, "ttft_p95");
    expect(ttft.ratio!).toBeGreaterThan(1.05);
    expect(ttft.pChange!).toBeLessThan(0.001);
    expect(ttft.verdict).toBe("inconclusive");
    // The decision interval holds the tolerance: neither beyond it nor inside it.
    expect(ttft.ci![0]).toBeLessThanOrEqual(1.05);
    expect(ttft.ci![1]).toBeGreaterThanOrEqual(1.05);
  });
});

describe("robust screen for outlier runs", () => {
  const withOutlier = (runs: RunFile[], index: number, factor = 1.3) =>
    runs.map((run, i) => (i === index ? makeRunFile({ run: run.run, slowdown: factor }) : run));

  it("excludes a run 1.3x slower on every latency, lists why, and still passes a clean PR", () => {
    const base = records(noisyRuns(10, { seed: 301 }), "b");
    const cand = records(withOutlier(noisyRuns(10, { seed: 302 }), 4), "c");
    const outcome = compare(base, cand);
    const screened = outcome.verdict.runs.excluded.filter((run) =>
      run.reasons.join().includes("outlier run"),
    );
    expect(screened).toHaveLength(1);
    expect(screened[0]).toMatchObject({ side: "candidate", run: 4 });
    expect(screened[0]!.reasons[0]).toMatch(/worse than the other candidate runs.*TTFT p95 \+/);
    expect(outcome.verdict.verdict).toBe("pass");
    expect(find(outcome, "ttft_p95").runs.candidate).toBe(9);
    expect(outcome.reportMarkdown).toMatch(/### Runs excluded[\s\S]*outlier run/);
  });

  it("never hides a shift that every candidate run shares", () => {
    const base = records(noisyRuns(10, { seed: 303 }), "b");
    const cand = records(withOutlier(noisyRuns(10, { seed: 304, shift: 1.2 }), 2, 1.2 * 1.3), "c");
    const outcome = compare(base, cand);
    expect(outcome.verdict.verdict).toBe("regression");
    const screened = outcome.verdict.runs.excluded.filter((run) => run.side === "candidate");
    expect(screened.map((run) => run.run)).toEqual([2]);
    expect(find(outcome, "ttft_p95").ratio!).toBeGreaterThan(1.15);
  });

  it("asks for a replacement run within repeats.max when a screened run leaves the look short", () => {
    const base = records(noisyRuns(5, { seed: 305 }), "b");
    const cand = records(withOutlier(noisyRuns(5, { seed: 306, shift: 1.05 }), 1, 1.05 * 1.3), "c");
    const outcome = compare(base, cand);
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.cells[0]).toMatchObject({ candidateRuns: 4, baselineRuns: 5 });
    // 4 usable of 5 measured: one replacement reaches the look at 5 usable runs.
    expect(outcome.verdict.nextLook).toMatchObject({
      runsPerSide: 6,
      addCandidateRuns: 1,
      addBaselineRuns: 1,
    });
    expect(outcome.verdict.nextLook!.reason).toMatch(/1 excluded run replaced/);
    const atMax = compare(base, cand, (s) => {
      s.repeats = { min: 5, max: 5 };
    });
    expect(atMax.verdict.nextLook).toBeNull();
  });

  it("is off with gate.outlier_threshold 0, and does not screen sides of fewer than 5 runs", () => {
    const cand = records(withOutlier(noisyRuns(10, { seed: 308 }), 4), "c");
    const off = compare(records(noisyRuns(10, { seed: 307 }), "b"), cand, (s) => {
      s.gate.outlier_threshold = 0;
    });
    expect(off.verdict.runs.excluded).toHaveLength(0);
    const small = compare(
      records(noisyRuns(4, { seed: 309 }), "b"),
      records(withOutlier(noisyRuns(4, { seed: 310 }), 1), "c"),
    );
    expect(small.verdict.runs.excluded).toHaveLength(0);
  });
});

describe("gated metrics absent from the inputs", () => {
  // `vllm bench serve` defaults: --metric-percentiles 99, so no p95 (test/metrics/vllm-fixtures.ts).
  const vllmRuns = (count: number, seed: number, ttft: number, completed: number) => {
    const random = seeded(seed);
    return Array.from({ length: count }, (_, i) => {
      const wobble = Math.exp(0.02 * gaussian(random));
      const latencies = Array.from({ length: completed }, (_, k) => (1 + (k % 50) / 100) * wobble);
      const result = vllmResultSchema.parse(
        vllmResult({
          num_prompts: completed,
          completed,
          duration: 60,
          latencies,
          queue_times: latencies.map(() => 0),
          mean_ttft_ms: 50 * ttft * wobble,
          median_ttft_ms: 48 * ttft * wobble,
          p99_ttft_ms: 90 * ttft * wobble,
          mean_tpot_ms: 7.5 * wobble,
          median_tpot_ms: 7.4 * wobble,
          p99_tpot_ms: 9 * wobble,
          output_throughput: 256 / wobble,
        }),
      );
      return runRecordFromVllmResult(result, `run-${seed}-${i}.json`, i);
    });
  };

  it("judges TTFT p95 on p99 when only p99 is saved, and blocks a 1.5x TTFT regression", () => {
    const outcome = compare(vllmRuns(5, 1, 1, 1000), vllmRuns(5, 2, 1.5, 1000));
    expect(outcome.verdict.verdict).toBe("regression");
    expect(outcome.exitCode).toBe(1);
    const ttft = find(outcome, "ttft_p95", "default");
    expect(ttft).toMatchObject({ judgedOn: "ttft_p99", verdict: "regression", gated: true });
    expect(ttft.note).toMatch(/--metric-percentiles 95,99/);
    expect(outcome.verdict.warnings.join()).toMatch(/judged on TTFT p99 instead/);
  });

  it("never passes when the stand-in cannot be gated: inconclusive, naming the flag, no more runs", () => {
    // 500 requests per run: too few to gate p99 (gate.min_requests.p99 = 1000).
    const outcome = compare(vllmRuns(5, 3, 1, 500), vllmRuns(5, 4, 1.5, 500));
    expect(outcome.verdict.verdict).not.toBe("pass");
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(find(outcome, "ttft_p95", "default")).toMatchObject({ verdict: "inconclusive", gated: true });
    expect(outcome.verdict.nextLook).toBeNull();
    expect(outcome.verdict.warnings.join()).toMatch(/--metric-percentiles 95,99/);
  });
});

describe("gated session metrics beside a cell of single requests", () => {
  // A session cell's runs carry the session metrics (run.json `sessions`); a chat cell's have none.
  const withSessions = (runs: RunRecord[], deepTtft: number) =>
    runs.map((run, i) => ({
      ...run,
      cell: "agent",
      metrics: {
        ...run.metrics,
        session_throughput: 2,
        ttft_p95_depth_8_up: deepTtft * (1 + 0.01 * (i % 3)),
      },
    }));
  const side = (seed: number, deepTtft: number) => [
    ...records(noisyRuns(5, { seed, sd: 0.01 }), `s${seed}`),
    ...withSessions(records(noisyRuns(5, { seed: seed + 1, sd: 0.01, cell: "agent" }), `s${seed}`), deepTtft),
  ];
  const gateDeepTurns = (s: ReturnType<typeof defaultCompareSettings>) => {
    s.gate.metrics = [...s.gate.metrics, "ttft_p95_depth_8_up"];
  };

  it("are judged in the session cell and skipped, with no warning, in the cell that has none", () => {
    const outcome = compare(side(501, 100), side(503, 100), gateDeepTurns);
    expect(outcome.verdict.verdict).toBe("pass");
    expect(find(outcome, "ttft_p95_depth_8_up", "agent")).toMatchObject({
      gated: true,
      verdict: "within-tolerance",
    });
    expect(find(outcome, "ttft_p95_depth_8_up", "chat")).toBeUndefined();
    expect(outcome.verdict.warnings.join()).not.toMatch(/not in the inputs/);
  });

  it("a regression of the deep turns blocks while the chat cell stays within tolerance", () => {
    const outcome = compare(side(505, 100), side(507, 160), gateDeepTurns);
    expect(outcome.verdict.verdict).toBe("regression");
    expect(find(outcome, "ttft_p95_depth_8_up", "agent").verdict).toBe("regression");
    expect(find(outcome, "ttft_p95", "chat").verdict).toBe("within-tolerance");
  });
});

describe("runs that cannot decide stop early, with the real cause", () => {
  it("a stored baseline with under 2 usable runs: no candidate runs asked for", () => {
    const outcome = compare(
      records(noisyRuns(1, { seed: 401 }), "b"),
      records(noisyRuns(5, { seed: 402 }), "c"),
      () => {},
      "stored",
    );
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.nextLook).toBeNull();
    expect(outcome.verdict.warnings.join()).toMatch(/stored baseline has 1 usable run of cell "chat"/);
  });

  it("a gated metric missing on one side: no more runs", () => {
    const base = records(noisyRuns(5, { seed: 403 }), "b").map((run) => ({
      ...run,
      metrics: { ...run.metrics, e2el_p95: null },
    }));
    const outcome = compare(base, records(noisyRuns(5, { seed: 404 }), "c"));
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.nextLook).toBeNull();
    expect(outcome.verdict.warnings.join()).toMatch(/E2E latency p95 is missing or zero in 5 baseline/);
  });

  it("a baseline whose requests all failed: no more runs", () => {
    const base = records(noisyRuns(5, { seed: 405 }), "b").map((run) => ({
      ...run,
      metrics: Object.fromEntries(
        Object.keys(run.metrics).map((key) => [key, key === "error_rate" ? 1 : null]),
      ),
      requests: { total: 1200, completed: 0, failed: 1200 },
    }));
    const outcome = compare(base, records(noisyRuns(5, { seed: 406 }), "c"), () => {}, "stored");
    expect(outcome.verdict.verdict).not.toBe("pass");
    expect(outcome.verdict.nextLook).toBeNull();
    expect(outcome.verdict.warnings.join()).toMatch(
      /every request of every baseline run of cell "chat" failed/,
    );
  });

  it("names wide run variance, not drift, when one baseline run is the outlier", () => {
    const base = records(runsWithFactors([1, 1.004, 0.996, 1.35]), "b");
    const cand = records(runsWithFactors([1.08, 1.085, 1.075]), "c");
    const outcome = compare(base, cand, () => {}, "stored");
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.nextLook).toBeNull();
    const text = outcome.verdict.warnings.join();
    expect(text).toMatch(/the runs vary too widely .* baseline side/);
    expect(text).not.toMatch(/session drift does not shrink/);
  });

  it("identical runs (a deterministic simulator) do not read as infinite certainty", () => {
    const base = records(runsWithFactors([1, 1, 1]), "b");
    const cand = records(runsWithFactors([1.08, 1.08, 1.08]), "c");
    const ttft = find(compare(base, cand), "ttft_p95");
    expect(ttft.pRaw!).toBeGreaterThan(0);
    expect(ttft.ci90![1] - ttft.ci90![0]).toBeGreaterThan(0.005);
    expect(ttft.note).toMatch(/floored at 0.005 \(gate.min_run_sd\)/);
  });
});

describe("what the reviewer sees", () => {
  it("never shows an interval entirely beyond the tolerance next to inconclusive; regression iff beyond", () => {
    for (let i = 0; i < 150; i++) {
      const sd = 0.02 + (i % 5) * 0.015;
      const outcome = compare(
        records(noisyRuns(3 + (i % 4), { seed: 700 + i, sd }), "b"),
        records(noisyRuns(3 + (i % 4), { seed: 900 + i, sd, shift: 1 + (i % 7) * 0.025 }), "c"),
        () => {},
        i % 2 === 0 ? "interleaved" : "stored",
      );
      for (const c of outcome.verdict.comparisons.filter((x) => x.gated && x.ci)) {
        const [lo, hi] = c.higherIsBetter ? [1 / c.ci![1], 1 / c.ci![0]] : c.ci!;
        const limit = 1 + c.tolerance;
        if (c.verdict === "inconclusive") {
          expect(lo).toBeLessThanOrEqual(limit * (1 + 1e-9));
          expect(hi).toBeGreaterThanOrEqual(limit * (1 - 1e-9));
        }
        if (c.verdict === "regression") expect(lo).toBeGreaterThan(limit);
        if (c.verdict === "within-tolerance") expect(hi).toBeLessThan(limit);
      }
    }
  });

  it("states the minimum detectable change, and for an inconclusive verdict the runs and GPU-minutes to settle it", () => {
    const outcome = compare(
      records(noisyRuns(5, { seed: 11, sd: 0.04 }), "b"),
      records(noisyRuns(5, { seed: 12, sd: 0.04, shift: 1.06 }), "c"),
    );
    expect(outcome.verdict.verdict).toBe("inconclusive");
    const ttft = find(outcome, "ttft_p95");
    expect(ttft.detectableChange!).toBeGreaterThan(0.05);
    expect(outcome.verdict.settle).not.toBeNull();
    expect(outcome.verdict.settle!.runsPerSide!).toBeGreaterThan(5);
    // Decisions happen at looks, so the estimate is a look.
    expect(outcome.verdict.settings.looks).toContain(outcome.verdict.settle!.runsPerSide);
    expect(outcome.verdict.settle!.gpuMinutes!).toBeGreaterThan(0);
    expect(outcome.verdict.nextLook!.gpuMinutes).toBeGreaterThan(0);
  });
});

describe("reasoning and tool calls", () => {
  /** Runs whose answers reasoned and called tools: `malformed` of every 100 calls were malformed. */
  const withAnswers = (runs: RunFile[], reasoning: number, malformed: number): RunFile[] =>
    runs.map((run, index) => ({
      ...run,
      answer: {
        reasoningRequests: run.requests.completed,
        reasoningTokens: { ...run.tokens.outputLengths, mean: reasoning * (1 + 0.01 * ((index % 3) - 1)) },
        reasoningFields: { reasoning: run.requests.completed },
        toolCalls: 100 - malformed,
        malformedToolCalls: malformed,
      },
    }));

  it("are advisory by default, gated when gate.metrics names them, and absent without tool calls", () => {
    const baseline = records(withAnswers(noisyRuns(5, { seed: 60 }), 400, 1), "b");
    const candidate = records(withAnswers(noisyRuns(5, { seed: 61 }), 520, 12), "c");
    const advisory = compare(baseline, candidate);
    expect(find(advisory, "malformed_tool_call_share")).toMatchObject({ gated: false });
    expect(find(advisory, "malformed_tool_call_share").candidate).toBeCloseTo(12 / 100, 10);
    expect(find(advisory, "reasoning_tokens_mean")).toMatchObject({ gated: false });
    expect(find(advisory, "reasoning_tokens_mean").ratio).toBeGreaterThan(1.2);
    expect(advisory.verdict.verdict).toBe("pass");

    const gated = compare(baseline, candidate, (s) => {
      s.gate.metrics = [...s.gate.metrics, "malformed_tool_call_share", "reasoning_tokens_mean"];
    });
    expect(find(gated, "malformed_tool_call_share")).toMatchObject({ gated: true, verdict: "regression" });
    expect(find(gated, "reasoning_tokens_mean")).toMatchObject({ gated: true, verdict: "regression" });
    expect(gated.verdict.verdict).toBe("regression");

    const plain = compare(records(noisyRuns(5, { seed: 62 }), "b"), records(noisyRuns(5, { seed: 63 }), "c"));
    for (const metric of ["malformed_tool_call_share", "reasoning_tokens_mean", "answer_ttft_p95"])
      expect(find(plain, metric), metric).toBeUndefined();
  });
});
