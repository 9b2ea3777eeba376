import type { MetricName } from "../config/metric-names.js";
import type { ExternalTaskFile } from "../runner/external-task.js";
import type { RunGuards, RunOutput } from "./guards.js";
import { runFileMetricRequests, runFileMetrics } from "./metric-values.js";
import type { RunFile } from "./run-schema.js";

/**
 * How a run's server start is known (docs/compare.md, Server starts): `recorded` in its file (run.json
 * `serverStart`, a vLLM result's `server_start`); `assumed-shared`: not recorded, so every run of its input
 * is taken to share one start (the conservative reading); `declared-fresh`: not recorded, and the user
 * declared each run a fresh start (compare --fresh-starts, gate.runs_are_fresh_starts).
 */
export const serverStartBases = ["recorded", "assumed-shared", "declared-fresh"] as const;
export type ServerStartBasis = (typeof serverStartBases)[number];

/**
 * One run, reduced to what `compare` needs: one number per metric, request counts, conditions and
 * health flags. Both `run.json` files and `vllm bench serve` result files become this.
 */
export interface RunRecord {
  /** File the run came from (shown in messages and in the report). */
  source: string;
  cell: string;
  run: number | null;
  startedAt: string | null;
  /**
   * Wall-clock of the measured phase in seconds (first dispatch to last completion), for the GPU time
   * spent: with idle gaps elided, what it took (run.json load.schedule.wallClockS), not the schedule's
   * duration; null if unknown.
   */
  durationS?: number | null;
  /** Per-run metric values: latencies in ms, throughputs per second, error_rate as a fraction. */
  metrics: Partial<Record<MetricName, number | null>>;
  requests: { total: number; completed: number; failed: number };
  /**
   * The requests a metric's value summarises where that is fewer than the completed requests (a session
   * cell's TTFT p95 at a context depth: the bucket's requests); the others summarise every completed one.
   */
  metricRequests?: Partial<Record<MetricName, number>>;
  /** The guard counts (run.json `guards`); absent in vLLM results and older run.json files. */
  guards?: RunGuards;
  /** Tool calls of the completed requests (run.json `answer`), pooled by malformed_tool_call_share. */
  toolCalls?: { wellFormed: number; malformed: number };
  /** A greedy-output cell's outputs per prompt (run.json `outputs`). */
  outputs?: RunOutput[];
  /** The external task results beside the run's run.json (runner/external-task.ts), when it has any. */
  external?: ExternalTaskFile[];
  fingerprint: Record<string, unknown>;
  /** Why the run must not be used, empty when it is healthy. */
  exclusionReasons: string[];
  /**
   * The server start that measured the run: runs with one id share it (see ServerStartBasis). Set from
   * the file when it records one; compare/inputs/load.ts assigns the others
   * (compare/inputs/server-starts.ts). Absent (records built in memory): the run is its own start.
   */
  serverStart?: { id: string; basis: ServerStartBasis };
  /**
   * The job/session the run came from (the results directory given on the command line). Baseline
   * runs from several sessions let compare estimate the between-session drift.
   */
  session?: string | null;
  /**
   * Set when the run was read from a file: the sha256 of its content (a run.json re-serialised, a vLLM result's bytes) plus what the file says it
   * is (cell, run index, start time; a vLLM result has no run index of its own, its `run` is the
   * file's position). Two records with the same identity are one run read twice
   * (compare/inputs/load.ts dropDuplicateRuns).
   */
  identity?: { contentHash: string; cell: string; run: number | null; startedAt: string | null };
  /**
   * The load the run was offered (a sweep or capacity search measures one cell at several,
   * docs/capacity.md): requests/s (null for a closed loop or an unbounded rate) and requests in flight.
   */
  load?: { targetRate: number | null; targetConcurrency: number | null };
}

export function runRecordFromRunFile(file: RunFile, source: string): RunRecord {
  const metrics = runFileMetrics(file);
  const exclusionReasons: string[] = [];
  if (file.flags.clientBound) {
    exclusionReasons.push(
      `client-bound${file.flags.clientBoundReason ? `: ${file.flags.clientBoundReason}` : ""}`,
    );
  }
  if (file.flags.serverStarved) {
    exclusionReasons.push(
      `server host starved${file.flags.serverStarvedReason ? `: ${file.flags.serverStarvedReason}` : ""}`,
    );
  }
  if (file.flags.serverCrashed) exclusionReasons.push("server crashed during the run");
  if (file.flags.interrupted) exclusionReasons.push(`interrupted by ${file.flags.interrupted}`);
  else if (file.flags.cutShort) exclusionReasons.push("run cut short");
  exclusionReasons.push(...(file.flags.unusableReasons ?? []));
  return {
    source,
    cell: file.cell,
    run: file.run,
    startedAt: file.startedAt,
    durationS: file.load.schedule?.wallClockS ?? file.durationS,
    metrics,
    requests: {
      total: file.requests.total,
      completed: file.requests.completed,
      failed: file.requests.failed,
    },
    ...(file.sessions !== undefined ? { metricRequests: runFileMetricRequests(file) } : {}),
    ...(file.guards !== undefined ? { guards: file.guards } : {}),
    ...(file.answer !== undefined
      ? { toolCalls: { wellFormed: file.answer.toolCalls, malformed: file.answer.malformedToolCalls } }
      : {}),
    ...(file.outputs !== undefined ? { outputs: file.outputs } : {}),
    fingerprint: file.fingerprint,
    exclusionReasons,
    ...(file.serverStart !== undefined
      ? { serverStart: { id: file.serverStart.id, basis: "recorded" as const } }
      : {}),
    load: { targetRate: file.load.targetRate, targetConcurrency: file.load.targetConcurrency },
  };
}
