import type { TimerClock } from "../util/clock.js";
import { describeConnectionFailure } from "../util/connection-errors.js";
import {
  getServedModels,
  getStatus,
  isUnauthorizedStatus,
  ProbeStatusError,
  type ProbeTarget,
  type ServedModel,
} from "./probe.js";

export type ReadinessOutcome =
  | { readonly ready: true; readonly models: ServedModel[]; readonly waitedMs: number }
  | { readonly ready: false; readonly reason: "exited"; readonly detail: string; readonly waitedMs: number }
  | { readonly ready: false; readonly reason: "timeout"; readonly detail: string; readonly waitedMs: number }
  | {
      readonly ready: false;
      readonly reason: "unauthorized";
      readonly detail: string;
      readonly waitedMs: number;
    }
  | {
      readonly ready: false;
      readonly reason: "wrong-model";
      readonly detail: string;
      readonly waitedMs: number;
    };

/** How often a wait for readiness says where it stands, at the least: 10 s. */
const readinessReportEveryMs = 10_000;

/** Where a wait for readiness stands: what it awaits, since when, the last probe's problem, its limit. */
export interface ReadinessWait {
  readonly baseUrl: string;
  /** What the next probe waits for. */
  readonly awaiting: string;
  readonly startedAt: Date;
  readonly elapsedMs: number;
  readonly lastProblem: string;
  readonly timeoutMs: number;
}

/**
 * Polls /health until 200, then /v1/models until it lists models (vLLM binds its socket only once the engine
 * is up, but /v1/models is what the load will use). Gives up at the deadline, and at once when the process
 * or container exits: waiting out a 15-minute timeout for a server that already crashed helps nobody.
 * An HTTP 401 or 403 also ends the wait at once (`unauthorized`): a server that refuses the credentials
 * will not accept them later.
 */
export async function waitForReady(options: ReadinessOptions): Promise<ReadinessOutcome> {
  const wait = new ReadinessPoll(options);
  const stopReporting = new AbortController();
  if (options.onWaiting) wait.report(options.onWaiting, stopReporting.signal);
  try {
    return await wait.poll();
  } finally {
    stopReporting.abort();
  }
}

interface ReadinessOptions {
  target: ProbeTarget;
  timeoutMs: number;
  pollMs: number;
  clock: TimerClock;
  exited: Promise<{ reason: string }>;
  /** The served model name the load will request; readiness fails clearly when the server does not serve it. */
  expectedModel?: string | undefined;
  /**
   * Called every `reportEveryMs` (default readinessReportEveryMs) while the server is not ready yet, on
   * the injected clock and whatever the probes do: a wait is never silent for longer.
   */
  onWaiting?: ((wait: ReadinessWait) => void) | undefined;
  reportEveryMs?: number | undefined;
}

/** One wait for readiness: what it awaits, the last probe's problem, and the server's exit once known. */
class ReadinessPoll {
  private readonly started: number;
  private readonly startedAt: Date;
  private exitReason: string | undefined;
  private readonly stopPolling = new AbortController();
  private healthy = false;
  private lastProblem = "no answer yet";

  constructor(private readonly options: ReadinessOptions) {
    this.started = options.clock.now();
    this.startedAt = options.clock.wallTime();
    void options.exited.then(({ reason }) => {
      this.exitReason = reason;
      this.stopPolling.abort();
    });
  }

  /** Says where the wait stands every `reportEveryMs` until `stop` aborts. */
  report(onWaiting: (wait: ReadinessWait) => void, stop: AbortSignal): void {
    const { clock } = this.options;
    const everyMs = this.options.reportEveryMs ?? readinessReportEveryMs;
    void (async () => {
      for (;;) {
        await clock.sleep(everyMs, stop);
        if (stop.aborted) return;
        onWaiting({
          baseUrl: this.options.target.baseUrl,
          awaiting: this.healthy ? "GET /v1/models to list a model" : "GET /health to answer 200",
          startedAt: this.startedAt,
          elapsedMs: clock.now() - this.started,
          lastProblem: this.lastProblem,
          timeoutMs: this.options.timeoutMs,
        });
      }
    })();
  }

  async poll(): Promise<ReadinessOutcome> {
    const { clock, timeoutMs, pollMs } = this.options;
    for (;;) {
      // Let an already-settled exit win over one more probe.
      await Promise.resolve();
      if (this.exitReason !== undefined) {
        return {
          ready: false,
          reason: "exited",
          detail: this.exitReason,
          waitedMs: clock.now() - this.started,
        };
      }
      const outcome = await this.probe();
      if (outcome !== null) return outcome;
      if (this.exitReason !== undefined) continue;
      const elapsed = clock.now() - this.started;
      if (elapsed >= timeoutMs) {
        return {
          ready: false,
          reason: "timeout",
          detail: `not ready after ${Math.round(elapsed / 1000)} s (last probe: ${this.lastProblem})`,
          waitedMs: elapsed,
        };
      }
      await clock.sleep(Math.min(pollMs, Math.max(0, timeoutMs - elapsed)), this.stopPolling.signal);
    }
  }

  /** One probe: /health until it answers 200, then /v1/models; the outcome once there is one, else null. */
  private async probe(): Promise<ReadinessOutcome | null> {
    const { target, clock } = this.options;
    try {
      if (!this.healthy) {
        const status = await getStatus(target, "/health");
        if (isUnauthorizedStatus(status))
          return unauthorized("GET /health", status, target, this.started, clock);
        this.healthy = status === 200;
        this.lastProblem = `/health answered HTTP ${status}`;
      }
      if (this.healthy) {
        const models = await getServedModels(target);
        if (models.length > 0) return this.served(models);
        this.lastProblem = "/v1/models listed no model";
      }
    } catch (error) {
      if (error instanceof ProbeStatusError && isUnauthorizedStatus(error.status))
        return unauthorized("GET /v1/models", error.status, target, this.started, clock);
      this.lastProblem = describeProbeError(error, target.baseUrl);
    }
    return null;
  }

  /** Ready, unless the server does not serve the model the load will request. */
  private served(models: ServedModel[]): ReadinessOutcome {
    const waitedMs = this.options.clock.now() - this.started;
    const expected = this.options.expectedModel;
    if (expected !== undefined && !models.some((model) => model.id === expected)) {
      return {
        ready: false,
        reason: "wrong-model",
        detail: `the server serves ${models.map((model) => `"${model.id}"`).join(", ")} but model.name is "${expected}"`,
        waitedMs,
      };
    }
    return { ready: true, models, waitedMs };
  }
}

/**
 * One progress line of a wait: "waiting for the server at URL: 20 s since 11:52:03 UTC, awaiting GET
 * /health to answer 200; last probe: connection refused by ...; gives up after 900 s (LIMIT)".
 */
export function formatReadinessWait(
  wait: ReadinessWait,
  /** The limit as the user set it (the wait's own timeout may be what is left of it), and its name. */
  limit: { seconds: number; name: string } = { seconds: wait.timeoutMs / 1000, name: "the timeout" },
): string {
  const since = wait.startedAt.toISOString().slice(11, 19);
  return `waiting for the server at ${wait.baseUrl}: ${Math.round(wait.elapsedMs / 1000)} s since ${since} UTC, awaiting ${wait.awaiting}; last probe: ${wait.lastProblem}; gives up after ${Math.round(limit.seconds)} s (${limit.name})`;
}

function unauthorized(
  probe: string,
  status: number,
  target: ProbeTarget,
  started: number,
  clock: TimerClock,
): ReadinessOutcome {
  return {
    ready: false,
    reason: "unauthorized",
    detail: `${probe} answered HTTP ${status} (unauthorized): the server ${
      target.apiKey
        ? "refuses the API key sent (server.api_key_env)"
        : "wants an API key and none is sent (set server.api_key_env)"
    }`,
    waitedMs: clock.now() - started,
  };
}

function describeProbeError(error: unknown, baseUrl: string): string {
  const connection = describeConnectionFailure(error, baseUrl);
  if (connection !== null) return connection;
  if ((error as Error).name === "TimeoutError") return "no answer within 5 s";
  return (error as Error).message ?? String(error);
}
