import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareAndRender, compareResults } from "../../../src/app/compare.js";
import { costPerThousandRequests } from "../../../src/compare/budget/cost.js";
import { capacityCells, compareCapacity } from "../../../src/compare/capacity/capacity.js";
import { settingsFromConfig } from "../../../src/compare/index.js";
import { configSchema } from "../../../src/config/schema.js";
import type { RunRecord } from "../../../src/metrics/run-record.js";
import { capacityAnswerRows, capacitySentence } from "../../../src/report/capacity.js";
import { noSecrets } from "../../job-outbound.js";
import { capacityCell, doublingCapacityRuns } from "./capacity-fixtures.js";

const config = configSchema.parse({
  version: 1,
  server: { kind: "sim" },
  model: { name: "m" },
  cells: [capacityCell()],
  cost: { gpu_hourly_usd: 2.5, gpus: 2 },
});

/** Two runs per load 1..4 (./capacity-fixtures.ts), with output throughput and TPOT for the per-side figures. */
const side = (scale: number, name: string): RunRecord[] =>
  doublingCapacityRuns(scale, name, (load) => ({ output_throughput: load * 8, tpot_p50: 20 }));

// ln 300 lies ln(1.5)/ln(2) of the way from ln 200 to ln 400 (the means' ln shift by the jitter is 5e-5).
const share = Math.log(1.5) / Math.log(2);

describe("compareCapacity", () => {
  it("finds each side's capacity, the ratio, requests per hour and cost per 1,000 by hand", () => {
    const [check] = compareCapacity({
      cells: capacityCells(config),
      baseline: side(1, "b"),
      candidate: side(2, "c"),
      gate: config.gate,
      cost: config.cost,
    });
    expect(check!.baseline.capacity).toBeCloseTo(2 + share, 3);
    expect(check!.candidate.capacity).toBeCloseTo(1 + share, 3);
    expect(check!.ratio).toBeCloseTo((1 + share) / (2 + share), 3);
    expect(check!.verdict).toBe("regression");
    // request_throughput is the load here: req/h = 3600 x capacity; $ = 2.5 x 2 GPUs / req/h x 1000.
    expect(check!.baseline.successfulPerHour).toBeCloseTo(3600 * (2 + share), 0);
    expect(check!.baseline.costPer1000).toBeCloseTo((5 / check!.baseline.successfulPerHour!) * 1000, 9);
    expect(check!.baseline.costPer1000).toBeCloseTo((5 / (3600 * (2 + share))) * 1000, 4);
    expect(check!.costRatio).toBeCloseTo((2 + share) / (1 + share), 3);
    expect(check!.baseline.outputTokensPerSecondPerGpu).toBeCloseTo(((2 + share) * 8) / 2, 3);
    expect(check!.baseline.outputTokensPerSecondPerUser).toBe(50);
    // Acceptance at load 2, the highest the baseline met the SLO at: 200 ms against the candidate's 400.
    expect(check!.acceptance.load).toBe(2);
    expect(check!.acceptance.rows[0]).toMatchObject({
      objective: "ttft_p95",
      threshold: 300,
      baselinePass: true,
      candidatePass: false,
    });
    expect(check!.acceptance.rows[0]!.baseline).toBeCloseTo(200, 9);
  });

  it("carries each side's load curve: per load the means of its usable runs, excluded runs left out", () => {
    const candidate = side(2, "c");
    candidate[0] = { ...candidate[0]!, exclusionReasons: ["client-bound"] };
    const [check] = compareCapacity({
      cells: capacityCells(config),
      baseline: side(1, "b"),
      candidate,
      gate: config.gate,
      cost: config.cost,
    });
    const baseline = check!.curve!.baseline;
    expect(baseline.map((p) => p.load)).toEqual([1, 2, 3, 4]);
    // Load 3: TTFT p95 runs 400 x 1.01 and 400 x 0.99, mean 400; 3 req/s, 24 tok/s; no goodput or E2E.
    expect(baseline[2]).toEqual({
      load: 3,
      runs: 2,
      completedPerSecond: 3,
      goodput: null,
      outputTokensPerSecond: 24,
      ttftMs: 400,
      e2elMs: null,
    });
    // The candidate's first run at load 1 is excluded: one run, 200 x 0.99.
    expect(check!.curve!.candidate[0]).toMatchObject({ load: 1, runs: 1 });
    expect(check!.curve!.candidate[0]!.ttftMs).toBeCloseTo(198, 9);
  });

  it("joins the gated family's Holm adjustment", () => {
    const run = (family: number[]) =>
      compareCapacity(
        {
          cells: capacityCells(config),
          baseline: side(1, "b"),
          candidate: side(2, "c"),
          gate: config.gate,
          cost: config.cost,
          resamples: 999,
        },
        family.map((p) => ({
          source: "speed" as const,
          regression: { p, minP: 0 },
          improvement: { p: 1 - p, minP: 0 },
        })),
      )[0]!.p!;
    // Every draw is a regression: the raw p is 1/(999 + 1); smallest of a family of 4, Holm multiplies by 4.
    expect(run([])).toBeCloseTo(1 / 1000, 12);
    expect(run([0.5, 0.5, 0.5])).toBeCloseTo(4 / 1000, 12);
  });

  it("does not compare costs or capacities when a side meets the SLOs at no load", () => {
    const [check] = compareCapacity({
      cells: capacityCells(config),
      baseline: side(1, "b"),
      candidate: side(10, "c"),
      gate: config.gate,
      cost: config.cost,
    });
    expect(check!.candidate.bound).toBe("below");
    expect(check!.candidate.costPer1000).toBeNull();
    expect(check!.costRatio).toBeNull();
    expect(capacitySentence(check!)).toContain("the candidate meets the SLOs at no load measured");
  });
});

describe("a session cell's capacity", () => {
  // The same runs as a session cell's: the load is sessions/s, each session 5 requests, 0.9 of the sessions
  // started per second completed within the run.
  const sessionConfig = configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [
      {
        ...capacityCell(),
        endpoint: "chat",
        dataset: { type: "sessions", turns: 5, message_tokens: 8, output_tokens: 8 },
      },
    ],
    cost: { gpu_hourly_usd: 2.5, gpus: 2 },
  });
  const sessionSide = (scale: number, name: string): RunRecord[] =>
    doublingCapacityRuns(scale, name, (load) => ({
      request_throughput: load * 5,
      session_throughput: load * 0.9,
      output_throughput: load * 40,
      tpot_p50: 20,
    }));

  it("reads as completed sessions per GPU-hour at the SLOs, in the sentence and the first screen's rows", () => {
    const [check] = compareCapacity({
      cells: capacityCells(sessionConfig),
      baseline: sessionSide(1, "b"),
      candidate: sessionSide(2, "c"),
      gate: sessionConfig.gate,
      cost: sessionConfig.cost,
    });
    expect(check!.unit).toBe("sessions");
    // session_throughput at the capacity x 3600 / 2 GPUs.
    expect(check!.baseline.sessionsPerGpuHour).toBeCloseTo((0.9 * (2 + share) * 3600) / 2, 0);
    expect(check!.candidate.sessionsPerGpuHour).toBeCloseTo((0.9 * (1 + share) * 3600) / 2, 0);
    const b = Math.round(check!.baseline.sessionsPerGpuHour!).toLocaleString("en-US");
    const c = Math.round(check!.candidate.sessionsPerGpuHour!).toLocaleString("en-US");
    const sentence = capacitySentence(check!);
    expect(sentence).toContain(
      `At p95 TTFT ≤ 300 ms, errors ≤ 1%, the candidate completes ${c} sessions per GPU-hour against the baseline's ${b}, `,
    );
    expect(sentence).toMatch(/[\d,]+ fewer per GPU-hour \(capacity −/);
    expect(sentence).not.toContain("requests/h");
    const answer = capacityAnswerRows([check!], (cell) => cell);
    expect(answer.header[2]).toBe("Sessions per GPU-hour at the SLOs");
    expect(answer.rows[0]![2]).toBe(b);
    expect(answer.rows[1]![2]).toMatch(new RegExp(`^${c} \\(−[\\d,]+, −`));
    expect(answer.note).toContain("Sessions per GPU-hour: completed sessions at the highest load");
    expect(answer.note).not.toContain("Requests per hour");
  });

  it("names each row's unit when request and session cells share the first screen's table", () => {
    const requests = compareCapacity({
      cells: capacityCells(config),
      baseline: side(1, "b"),
      candidate: side(2, "c"),
      gate: config.gate,
      cost: config.cost,
    })[0]!;
    const sessions = compareCapacity({
      cells: capacityCells(sessionConfig),
      baseline: sessionSide(1, "b"),
      candidate: sessionSide(2, "c"),
      gate: sessionConfig.gate,
      cost: sessionConfig.cost,
    })[0]!;
    expect(requests.unit).toBe("requests");
    expect(requests.baseline.sessionsPerGpuHour).toBeNull();
    const answer = capacityAnswerRows([requests, { ...sessions, cell: "agent" }], (cell) => cell);
    expect(answer.header[2]).toBe("Per hour at the SLOs");
    expect(answer.rows[0]![2]).toMatch(/^[\d,]+ requests$/);
    expect(answer.rows[2]![2]).toMatch(/^[\d,]+ sessions per GPU-hour$/);
    expect(answer.note).toContain("Requests per hour");
    expect(answer.note).toContain("Sessions per GPU-hour");
  });
});

describe("cost per 1,000 successful requests", () => {
  it("is the GPUs' hourly price over successful requests per hour, x 1,000", () => {
    expect(costPerThousandRequests(2, 4, 40_000)).toBeCloseTo(0.2, 12);
    expect(costPerThousandRequests(undefined, 1, 100)).toBeNull();
    expect(costPerThousandRequests(2, 1, 0)).toBeNull();
  });
});

describe("compare with capacity cells", () => {
  it("decides on capacity alone, fails the gate and writes the capacity sentence in the report", () => {
    const outcome = compareAndRender({
      baseline: side(1, "b"),
      candidate: side(2, "c"),
      settings: settingsFromConfig(config),
      mode: "interleaved",
      now: new Date("2026-01-01T00:00:00Z"),
    });
    expect(outcome.verdict.verdict).toBe("regression");
    expect(outcome.exitCode).toBe(1);
    expect(outcome.verdict.capacity).toHaveLength(1);
    expect(outcome.reportMarkdown).toContain("### Capacity at the SLOs");
    expect(outcome.reportMarkdown).toMatch(
      /At p95 TTFT ≤ 300 ms, errors ≤ 1%, the candidate completes 5,706 requests\/h against the baseline's 9,306, 3,600 fewer per hour \(capacity −38\.7%, 90% CI −\d\d\.\d% to −\d\d\.\d%\); at that load the slowest 5% wait 300 ms for their first token \(baseline, at its capacity: [\d.,]+ ms\); \$0\.88 per 1,000 successful requests against \$0\.54 \(\+63\.1%\)\./,
    );
    expect(outcome.reportMarkdown).not.toContain("No gated metric could be compared");
  });

  it("passes when the candidate's capacity is the baseline's", () => {
    const outcome = compareAndRender({
      baseline: side(1, "b"),
      candidate: side(1, "c"),
      settings: settingsFromConfig(config),
      mode: "interleaved",
    });
    expect(outcome.verdict.capacity![0]!.verdict).toBe("within-tolerance");
    expect(outcome.verdict.verdict).toBe("pass");
  });
});

describe("capacity from `vllm bench serve` result files", () => {
  it("groups files by label into the cell and by request_rate into loads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vpg-capacity-vllm-"));
    try {
      for (const [name, scale] of [
        ["base", 1],
        ["cand", 2],
      ] as const) {
        mkdirSync(join(dir, name));
        for (const load of [1, 2, 3, 4])
          for (const [k, jitter] of [1.01, 0.99].entries()) {
            // The shape `vllm bench serve --save-result --metric-percentiles 50,95 --label cap` writes
            // (vllm/benchmarks/serve.py: request_rate, label, pNN_<metric>_ms), trimmed to what is read.
            writeFileSync(
              join(dir, name, `cap-rate${load}-${k}.json`),
              JSON.stringify({
                date: `20261201-00000${k}`,
                label: "cap",
                request_rate: load,
                max_concurrency: null,
                num_prompts: 100,
                duration: 100 / load,
                completed: 100,
                failed: 0,
                request_throughput: load,
                output_throughput: load * 8,
                median_ttft_ms: 50,
                p95_ttft_ms: scale * 100 * 2 ** (load - 1) * jitter,
                median_tpot_ms: 20,
                p95_tpot_ms: 25,
              }),
            );
          }
      }
      const outcome = await compareResults({
        outbound: noSecrets,
        baseline: [join(dir, "base")],
        candidate: [join(dir, "cand")],
        config,
        mode: "interleaved",
      });
      const check = outcome.verdict.capacity![0]!;
      expect(check.baseline.loads).toBe(4);
      expect(check.baseline.runs).toBe(8);
      expect(check.baseline.capacity).toBeCloseTo(2 + share, 3);
      expect(check.candidate.capacity).toBeCloseTo(1 + share, 3);
      expect(check.verdict).toBe("regression");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a sweep compared without its capacity config", () => {
  it("warns that runs at several loads are pooled as one fixed-load cell", () => {
    const outcome = compareAndRender({
      baseline: side(1, "b"),
      candidate: side(1, "c"),
      mode: "interleaved",
    });
    expect(outcome.verdict.capacity).toBeUndefined();
    expect(outcome.verdict.warnings.join("\n")).toContain('cell "cap" has runs at 4 different loads');
  });
});

describe("runs without a successful request", () => {
  it("miss the latency SLOs and the error limit without breaking the interval", () => {
    const failing = (records: RunRecord[]) =>
      records.map((record) =>
        record.load?.targetRate === 4
          ? {
              ...record,
              metrics: { ...record.metrics, ttft_p95: null, error_rate: 1 },
              requests: { total: 100, completed: 0, failed: 100 },
            }
          : record,
      );
    const [check] = compareCapacity({
      cells: capacityCells(config),
      baseline: failing(side(1, "b")),
      candidate: failing(side(2, "c")),
      gate: config.gate,
      cost: config.cost,
    });
    expect(check!.baseline.capacity).toBeCloseTo(2 + share, 3);
    expect(check!.baseline.interval!.every(Number.isFinite)).toBe(true);
    expect(check!.verdict).toBe("regression");
  });
});
