import { describeValue } from "./fields.js";

/**
 * The most `run` can execute: validate rejects anything beyond (docs/config-reference.md#limits), so a config that
 * validates never crashes or stalls the runner by its size alone.
 */
export const configLimits = {
  /** Requests in flight (closed-loop concurrency, max_concurrency, a stage's concurrency). */
  concurrency: 4096,
  /** Measured requests per run. */
  requestsPerRun: 100_000,
  /** Warm-up requests per run. */
  warmupRequests: 10_000,
  /** Requests per second (open loop, a stage's rate). */
  ratePerSecond: 10_000,
  /** Any duration or timeout, in seconds (one day). */
  seconds: 86_400,
  /** Any token count or length. */
  tokens: 1_000_000,
  /** Prompt tokens of one run's requests together (size.requests x the longest prompt). */
  promptTokensPerRun: 100_000_000,
  /** Prefixes or documents of a generated dataset. */
  datasetItems: 100_000,
  /** sigma of a lognormal length (larger spreads overflow any token limit). */
  lognormalSigma: 5,
  stages: 100,
  cells: 1000,
  /** repeats.min, repeats.max, repeats.baseline and repeats.block. */
  runs: 1000,
  /** gate.baseline_sessions: the stored baselines a pull request reads (each one artifact download). */
  baselineSessions: 100,
  /** gate.budget_gpu_minutes: one pull request's GPU time (a week of one GPU). */
  budgetGpuMinutes: 10_080,
  /** runner.devices: servers a runner runs at once. */
  devices: 64,
  /** runner.settle_ms: the wait after the last response before an idle-elided arrival (one minute). */
  settleMs: 60_000,
  /** Turns of one session (session datasets: generated, read from a file or a trace). */
  sessionTurns: 256,
  /** Branches of one sub-agent fan-out (session datasets' fan_out.branches). */
  fanOutBranches: 32,
  /** Think time or tool latency between two turns, in seconds (one hour). */
  turnDelaySeconds: 3_600,
  /** Requests (rows) a trace keeps after its filters, window, max_rows and sample. */
  traceRequests: 1_000_000,
  /** Bytes of one line of a trace file (a CSV record or a JSON Lines object). */
  traceLineBytes: 1_048_576,
  /** Bytes of a trace file (what Node reads into memory at once: 2 GiB less a byte). */
  traceFileBytes: 2_147_483_647,
  /** Bytes of any other dataset file, read as one text (the longest string Node holds). */
  datasetFileBytes: 536_870_888,
} as const;

/** The message of a limit: names the limit and where it is documented. */
export function atMost(limit: number, name: string) {
  return {
    error: (issue: { input?: unknown }) =>
      `expected at most ${limit} (the limit on ${name}; see docs/config-reference.md#limits), got ${describeValue(issue.input)}`,
  };
}
