import type { Outbound } from "../server/outbound.js";
import type { ServerStart } from "../server/server-start.js";
import type { Workload } from "../workload/workload.js";
import type { CellContext } from "./cell-context.js";
import type { LoadPlan } from "./load-plan.js";
import type { Measurement } from "./measured-phase.js";

/**
 * The seam between measuring a run and summarising it. The runner measures (records, scrapes, the
 * run's own facts) and hands both to an injected recorder, which summarises them and writes the run's
 * files; the standard one (src/app/run-file.ts: run.json with metrics/' definitions, and vllm-result.json)
 * is injected by src/app/run-cells.ts. The runner itself reads only the facts it knows.
 */

export type OutputFormat = "vllm";

/** What the run knows besides the measurement when run.json is assembled (read at that moment). */
export interface RunOutcome {
  context: CellContext;
  workload: Workload;
  plan: LoadPlan;
  runIndex: number;
  side: string | undefined;
  warmupCount: number;
  peakOnSocket: number;
  crashReason: string | null;
  refusedInARow: number | null;
  aborted: boolean;
  notes: string[];
  prefix: { policy: CellContext["cell"]["prefix"]; cacheSalt: string | null; cacheReset: boolean };
  serverFingerprint: Record<string, unknown>;
  /** The server start the run was measured on (the session's). */
  serverStart: ServerStart;
  formats: readonly OutputFormat[];
  dir: string;
  /** The job's output seam: the run's files are written through it. */
  outbound: Outbound;
}

/** How a run ended, from its own facts: the server died, or the run stopped before its end. */
export function runEnd(outcome: Pick<RunOutcome, "crashReason" | "refusedInARow" | "aborted">): {
  serverCrashed: boolean;
  cutShort: boolean;
} {
  const serverCrashed = outcome.crashReason !== null;
  return { serverCrashed, cutShort: serverCrashed || outcome.refusedInARow !== null || outcome.aborted };
}

export interface RunRecorder<Recorded> {
  /** Summarises a finished run and writes its files (through `outcome.outbound`); returns the summary. */
  record(measurement: Measurement, outcome: RunOutcome): Recorded;
  /** Rewrites a recorded run that an interrupt cut short, marked with the interrupt's reason. */
  markInterrupted(dir: string, recorded: Recorded, reason: string, outbound: Outbound): Recorded;
  /** The progress line after a run. */
  describe(recorded: Recorded): string;
}
