import type { ScheduleClock } from "../util/clock.js";
import type { Engine, EngineRequestSpec, StepEvent } from "./engine.js";
import { HttpMetrics } from "./http-metrics.js";
import { renderMetrics } from "./metrics-text.js";

/** Runs an engine on virtual time: the same step loop the server runs, without waiting. For tests and analysis. */
export interface VirtualArrival {
  at: number;
  spec: EngineRequestSpec;
}

export interface VirtualOutcome {
  id: string;
  arrival: number;
  tokenTimes: number[];
  /** The tokens produced, in order (the EOS token, which has no text, included). */
  tokens: number[];
  finishReason?: string;
  cachedPromptTokens: number;
}

export interface VirtualRun {
  outcomes: Map<string, VirtualOutcome>;
  endTime: number;
  steps: number;
  /** Running/waiting counts sampled at each step start. */
  samples: { at: number; running: number; waiting: number; kvUsage: number }[];
}

export function runVirtual(engine: Engine, arrivals: readonly VirtualArrival[], startAt = 0): VirtualRun {
  const pending = [...arrivals].sort((a, b) => a.at - b.at);
  const outcomes = new Map<string, VirtualOutcome>();
  const samples: VirtualRun["samples"] = [];
  let now = startAt;
  let next = 0;
  let steps = 0;
  const admitUntil = (time: number) => {
    while (next < pending.length && pending[next]!.at <= time) {
      const arrival = pending[next++]!;
      outcomes.set(arrival.spec.id, {
        id: arrival.spec.id,
        arrival: arrival.at,
        tokenTimes: [],
        tokens: [],
        cachedPromptTokens: 0,
      });
      engine.addRequest(arrival.spec, arrival.at);
    }
  };
  const apply = (events: StepEvent[], time: number) => {
    for (const event of events) {
      const outcome = outcomes.get(event.id)!;
      outcome.tokenTimes.push(time);
      outcome.tokens.push(event.token);
      outcome.cachedPromptTokens = event.cachedPromptTokens;
      if (event.finishReason) outcome.finishReason = event.finishReason;
    }
  };
  for (;;) {
    admitUntil(now);
    const plan = engine.beginStep(now);
    for (const id of engine.takeRejected()) outcomes.get(id)!.finishReason = "abort";
    if (!plan) {
      if (next >= pending.length) break;
      now = Math.max(now, pending[next]!.at);
      continue;
    }
    samples.push({
      at: now,
      running: engine.numRunning,
      waiting: engine.numWaiting,
      kvUsage: engine.kvUsage,
    });
    steps++;
    const end = now + plan.durationMs;
    // Requests arriving during the step join at the next step boundary, with their true arrival time.
    while (next < pending.length && pending[next]!.at < end) admitUntil(pending[next]!.at);
    apply(engine.endStep(), end);
    now = end;
  }
  return { outcomes, endTime: now, steps, samples };
}

/**
 * The engine stepped on an injected clock, requests submitted as they come (the runner's dispatcher on
 * virtual time talks to it as it would to the server): each resolves with its token times when it
 * finishes. Steps follow each other on the engine's timeline; an idle engine starts its first step at
 * the arrival, as the server's step loop does (loop.ts).
 */
export interface ClockedEngine {
  submit(spec: EngineRequestSpec): Promise<VirtualOutcome>;
}

export function clockedEngine(engine: Engine, clock: ScheduleClock): ClockedEngine {
  const open = new Map<string, { outcome: VirtualOutcome; resolve: (outcome: VirtualOutcome) => void }>();
  let stepping = false;
  const finish = (id: string, reason: string) => {
    const entry = open.get(id);
    if (!entry) return;
    open.delete(id);
    entry.outcome.finishReason = reason;
    entry.resolve(entry.outcome);
  };
  const step = async (start: number) => {
    let now = start;
    for (;;) {
      const plan = engine.beginStep(now);
      for (const id of engine.takeRejected()) finish(id, "abort");
      if (!plan) {
        stepping = false;
        return;
      }
      const end = now + plan.durationMs;
      await clock.sleepUntil(end);
      for (const event of engine.endStep()) {
        const entry = open.get(event.id);
        if (!entry) continue;
        entry.outcome.tokenTimes.push(end);
        entry.outcome.tokens.push(event.token);
        entry.outcome.cachedPromptTokens = event.cachedPromptTokens;
        if (event.finishReason) finish(event.id, event.finishReason);
      }
      now = end;
    }
  };
  return {
    submit(spec) {
      const arrival = clock.now();
      const outcome: VirtualOutcome = {
        id: spec.id,
        arrival,
        tokenTimes: [],
        tokens: [],
        cachedPromptTokens: 0,
      };
      const done = new Promise<VirtualOutcome>((resolve) => open.set(spec.id, { outcome, resolve }));
      engine.addRequest(spec, arrival);
      if (!stepping) {
        stepping = true;
        void step(arrival);
      }
      return done;
    },
  };
}

/**
 * The engine's `/metrics` text as the server would serve it now (no HTTP traffic counted): what a run on
 * virtual time scrapes before and after its measured phase, so its run.json has the server's counters.
 */
export function engineMetricsText(engine: Engine, modelName = "sim-model"): string {
  return renderMetrics({ engine, modelName, http: new HttpMetrics(), createdAt: 0 });
}
