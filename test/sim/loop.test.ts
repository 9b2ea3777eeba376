import { describe, expect, it } from "vitest";
import { Engine, type StepEvent } from "../../src/sim/engine.js";
import { StepLoop } from "../../src/sim/loop.js";
import { applyOverrides, builtInProfile } from "../../src/sim/profile.js";
import { VirtualClock } from "../util/virtual-clock.js";

/** Every step takes exactly 10 ms, whatever it holds. */
function flatSteps(coalesce: boolean) {
  return applyOverrides(builtInProfile("noiseless"), {
    step_overhead_ms: 10,
    prefill_per_token_ms: 0,
    decode_per_seq_ms: 0,
    attention_per_context_token_ms: 0,
    coalesce_late_tokens: coalesce,
  });
}

interface Delivery {
  events: StepEvent[];
}

function harness(coalesce: boolean, overrides: Record<string, number> = {}) {
  // The loop's decisions follow this clock; its waiting uses real timers, so tests move the clock past the deadlines.
  const clock = new VirtualClock();
  const engine = new Engine(applyOverrides(flatSteps(coalesce), overrides), 1);
  const deliveries: Delivery[] = [];
  const loop = new StepLoop(engine, clock, (events) => deliveries.push({ events: [...events] }), {
    sleepSliceMs: 0,
  });
  const add = (id: string, at: number, maxTokens = 8) =>
    engine.addRequest({ id, promptTokens: [1, 2, 3, 4], maxTokens, ignoreEos: true }, at);
  return { clock, engine, deliveries, loop, add };
}

/** Lets the loop's setImmediate / short setTimeout turns run (to show that nothing more happens). */
async function settle(ms = 20): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits, generously for a loaded machine, until the loop has made `count` deliveries. */
async function delivered(deliveries: Delivery[], count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (deliveries.length < count && Date.now() < deadline) await settle(2);
  await settle(5);
  expect(deliveries).toHaveLength(count);
}

const tokensOf = (delivery: Delivery, id: string) => delivery.events.filter((e) => e.id === id).length;

describe("the real-time step loop", () => {
  it("keeps the engine's timeline when late and sends the steps already due together", async () => {
    const { clock, deliveries, loop, add } = harness(true);
    add("a", 0);
    add("b", 0);
    clock.set(35); // the process stalled: steps ending at 10, 20 and 30 are all due
    loop.wake(0);
    await delivered(deliveries, 1);
    expect(tokensOf(deliveries[0]!, "a")).toBe(3);
    expect(tokensOf(deliveries[0]!, "b")).toBe(3);
    expect(Array.from(loop.latency().lateness)).toEqual([25, 15, 5]);
    // The next step still ends at 40 on the timeline, not 10 ms after the stall.
    clock.set(40);
    await delivered(deliveries, 2);
    expect(Array.from(loop.latency().lateness).at(-1)).toBe(0);
    loop.stop();
  });

  it("without coalescing delivers each late step on its own, still on the timeline", async () => {
    const { clock, deliveries, loop, add } = harness(false);
    add("a", 0);
    clock.set(35);
    loop.wake(0);
    await delivered(deliveries, 3);
    expect(deliveries.map((d) => tokensOf(d, "a"))).toEqual([1, 1, 1]);
    expect(Array.from(loop.latency().lateness)).toEqual([25, 15, 5]);
    loop.stop();
  });

  it("gives zero-length steps (a profile without costs) a turn each instead of merging them", async () => {
    const { deliveries, loop, add } = harness(true, { step_overhead_ms: 0 });
    add("a", 0, 5);
    loop.wake(0);
    await delivered(deliveries, 5);
    expect(deliveries.map((d) => tokensOf(d, "a"))).toEqual([1, 1, 1, 1, 1]);
    loop.stop();
  });

  it("restarts the timeline at now after a stall beyond the resync limit", async () => {
    const { clock, deliveries, loop, add } = harness(true);
    add("a", 0);
    clock.set(500);
    loop.wake(0);
    await delivered(deliveries, 1);
    // One step (the one due at 10) and no burst of the 49 steps the stall skipped.
    expect(deliveries.map((d) => tokensOf(d, "a"))).toEqual([1]);
    clock.set(509);
    await delivered(deliveries, 1);
    clock.set(510);
    await delivered(deliveries, 2);
    loop.stop();
  });

  it("starts the first step at the request's arrival, not after the simulator handled it", async () => {
    const { clock, deliveries, loop, add } = harness(true);
    add("a", 0);
    clock.set(3); // reading and tokenizing the request took 3 ms
    loop.wake(0);
    await settle();
    expect(deliveries).toHaveLength(0);
    clock.set(10.5);
    await delivered(deliveries, 1);
    expect(loop.latency().lateness[0]).toBeCloseTo(0.5, 9);
    loop.stop();
  });

  it("does not serve a request from a step placed before it arrived", async () => {
    const { clock, deliveries, loop, add } = harness(true);
    add("a", 0);
    loop.wake(0);
    clock.set(25); // behind: the next boundaries are 10 and 20; "b" arrives at 25
    add("b", 25);
    // Steps ending at 10 and 20 were due, and the step from 20 to 30 is under way: "b" is in none of
    // them and joins at the next boundary, 30, for its first token at 40.
    await delivered(deliveries, 1);
    expect(tokensOf(deliveries[0]!, "a")).toBe(2);
    expect(tokensOf(deliveries[0]!, "b")).toBe(0);
    clock.set(30);
    await delivered(deliveries, 2);
    expect(tokensOf(deliveries[1]!, "a")).toBe(1);
    expect(tokensOf(deliveries[1]!, "b")).toBe(0);
    clock.set(40);
    await delivered(deliveries, 3);
    expect(tokensOf(deliveries[2]!, "b")).toBe(1);
    loop.stop();
  });
});
