import { join } from "node:path";
import type { Outbound } from "../server/outbound.js";
import type { ScheduleClock } from "../util/clock.js";
import type { CellContext } from "./cell-context.js";
import { dispatchLoad } from "./dispatch.js";
import { JsonlAppender } from "./jsonl-appender.js";
import { type LoadPlan, warmupPlanOf } from "./load-plan.js";
import { type PhaseSenderSetup, phaseSender } from "./phase-sender.js";
import { type CellBodies, phaseBodies } from "./request-bodies.js";

/**
 * Warm-up: closed loop at the run's concurrency, its own prompts, results kept apart (warmup.jsonl).
 * Returns the number of warm-up requests done; failures are noted.
 */
export async function runWarmup(
  setup: PhaseSenderSetup,
  context: CellContext,
  plan: LoadPlan,
  dir: string,
  clock: ScheduleClock,
  bodies: CellBodies,
  outbound: Outbound,
  notes: string[],
): Promise<number> {
  const warmupPlan = warmupPlanOf(context.cell, plan);
  let warmupCount = 0;
  if (warmupPlan !== null) {
    const warmupLog = new JsonlAppender(join(dir, "warmup.jsonl"), outbound);
    const origin = clock.now();
    const warmup = phaseSender(
      setup,
      "warmup",
      warmupPlan,
      warmupLog,
      () => origin,
      phaseBodies(bodies, "warmup"),
    );
    try {
      await dispatchLoad({
        plan: warmupPlan,
        clock,
        seed: context.seed,
        shouldStop: setup.guard.stop,
        send: async (ticket) => (await warmup.send(ticket)).endAt,
      });
      await setup.bookkeeping.settled();
    } finally {
      warmupLog.close();
    }
    warmupCount = warmup.tally.done;
    if (warmup.tally.errors > 0) {
      notes.push(`${warmup.tally.errors} of ${warmupCount} warm-up requests failed`);
    }
  }
  return warmupCount;
}
