import type { RunRecord } from "../../../src/metrics/run-record.js";

/**
 * The capacity cell and crafted runs several compare and report tests share: loads 1 to 4 req/s, SLO p95
 * TTFT <= 300 ms, and two runs per load whose TTFT p95 doubles from load to load, so a crossing lies
 * between two loads where it can be computed by hand.
 */

/** The cell's config as a user writes it; `slo` and `capacity` add to or replace its fields. */
export function capacityCell(
  options: { slo?: Record<string, number>; capacity?: Record<string, unknown> } = {},
) {
  return {
    name: "cap",
    dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
    load: { type: "rate", rate: 1 },
    size: { requests: 100 },
    slo: { ttft_ms: 300, ...options.slo },
    capacity: { range: { min: 1, max: 4 }, ...options.capacity },
  };
}

/**
 * Two runs per load 1..4 of the cell "cap", TTFT p95 = scale x 100 x 2^(load-1) (x1.01 and x0.99), no
 * errors, request throughput the load; `more` adds or replaces metrics per run. Sources are
 * `<source>/<load>/<k>`.
 */
export function doublingCapacityRuns(
  scale: number,
  source: string,
  more: (load: number, jitter: number) => Record<string, number> = () => ({}),
): RunRecord[] {
  return [1, 2, 3, 4].flatMap((load) =>
    [1.01, 0.99].map((jitter, k) => ({
      source: `${source}/${load}/${k}`,
      cell: "cap",
      run: load * 2 + k,
      startedAt: null,
      metrics: {
        ttft_p95: scale * 100 * 2 ** (load - 1) * jitter,
        error_rate: 0,
        request_throughput: load,
        ...more(load, jitter),
      },
      requests: { total: 100, completed: 100, failed: 0 },
      fingerprint: {},
      exclusionReasons: [],
      load: { targetRate: load, targetConcurrency: null },
    })),
  );
}
