import { percentileSorted, sortNumbers } from "../stats/percentile.js";
import { type LatencySummary, noSamples } from "./run-schema.js";

/**
 * mean, std (population, ddof=0), median and numpy-linear percentiles, as `vllm bench serve` computes them.
 * Unlike vLLM, an empty sample gives nulls, not zeros: "no data" must never read as "instant".
 */
export function summarize(values: readonly number[]): LatencySummary {
  const count = values.length;
  if (count === 0) return { ...noSamples };
  const sorted = sortNumbers(values);
  let sum = 0;
  for (let index = 0; index < count; index++) sum += sorted[index]!;
  const mean = sum / count;
  let squares = 0;
  for (let index = 0; index < count; index++) squares += (sorted[index]! - mean) ** 2;
  const median = percentileSorted(sorted, 0.5);
  return {
    count,
    mean,
    std: Math.sqrt(squares / count),
    median,
    p50: median,
    p90: percentileSorted(sorted, 0.9),
    p95: percentileSorted(sorted, 0.95),
    p99: percentileSorted(sorted, 0.99),
    p99_9: percentileSorted(sorted, 0.999),
  };
}
