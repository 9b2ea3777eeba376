import { describe, expect, it } from "vitest";
import { dispatchLoad, type Ticket } from "../../src/runner/dispatch.js";
import type { LoadPlan } from "../../src/runner/load-plan.js";
import { VirtualClock } from "../util/virtual-clock.js";

function simulate(plan: LoadPlan, latencyMs: (ticket: Ticket) => number, seed = 1) {
  const clock = new VirtualClock();
  const tickets: Ticket[] = [];
  let inFlight = 0;
  let peak = 0;
  const done = dispatchLoad({
    plan,
    clock,
    seed,
    send: async (ticket) => {
      tickets.push(ticket);
      inFlight++;
      peak = Math.max(peak, inFlight);
      await clock.sleepUntil(clock.now() + latencyMs(ticket));
      inFlight--;
      return clock.now();
    },
  });
  return clock.runUntilSettled(done).then((result) => ({ result, tickets, peak, clock }));
}

function coefficientOfVariation(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return Math.sqrt(variance) / mean;
}

describe("dispatchLoad on virtual time", () => {
  it("sends 1,000 Poisson arrivals at the target rate with exponential-like gaps", async () => {
    const plan: LoadPlan = {
      segments: [{ kind: "rate", rate: 50, burstiness: 1, durationMs: null }],
      maxRequests: 1000,
      maxDurationMs: null,
      maxConcurrency: null,
    };
    const { result, tickets } = await simulate(plan, () => 100);
    expect(result.dispatched).toBe(1000);
    const last = tickets[tickets.length - 1]!.readyAt - result.startedAt;
    expect(1000 / (last / 1000)).toBeCloseTo(50, 6);
    const sends = tickets.map((ticket) => ticket.readyAt);
    const gaps = sends.slice(1).map((time, index) => time - sends[index]!);
    expect(coefficientOfVariation(gaps)).toBeGreaterThan(0.9);
    expect(coefficientOfVariation(gaps)).toBeLessThan(1.1);
    for (const ticket of tickets) expect(ticket.readyAt).toBe(ticket.scheduledAt);
  });

  it("gamma burstiness sets the variability of gaps (CV = 1/sqrt(shape))", async () => {
    for (const [burstiness, expected] of [
      [0.25, 2],
      [4, 0.5],
    ] as const) {
      const plan: LoadPlan = {
        segments: [{ kind: "rate", rate: 20, burstiness, durationMs: null }],
        maxRequests: 2000,
        maxDurationMs: null,
        maxConcurrency: null,
      };
      const { tickets } = await simulate(plan, () => 10, 7);
      const sends = tickets.map((ticket) => ticket.scheduledAt);
      const gaps = sends.slice(1).map((time, index) => time - sends[index]!);
      expect(Math.abs(coefficientOfVariation(gaps) - expected) / expected).toBeLessThan(0.12);
    }
  });

  it("keeps exactly N requests in flight in closed loop and stops at the count", async () => {
    const plan: LoadPlan = {
      segments: [{ kind: "concurrency", concurrency: 8, durationMs: null }],
      maxRequests: 100,
      maxDurationMs: null,
      maxConcurrency: 8,
    };
    const { result, tickets, peak } = await simulate(plan, (ticket) => 10 + (ticket.index % 5));
    expect(result.dispatched).toBe(100);
    expect(peak).toBe(8);
    expect(result.peakInFlight).toBe(8);
    expect(new Set(tickets.map((ticket) => ticket.index)).size).toBe(100);
  });

  it("queues arrivals beyond max_concurrency and measures the wait", async () => {
    const plan: LoadPlan = {
      segments: [{ kind: "rate", rate: 100, burstiness: 1, durationMs: null }],
      maxRequests: 200,
      maxDurationMs: null,
      maxConcurrency: 2,
    };
    const { tickets, peak } = await simulate(plan, () => 50);
    expect(peak).toBe(2);
    const waits = tickets.map((ticket) => ticket.slotAt - ticket.readyAt);
    expect(Math.max(...waits)).toBeGreaterThan(100);
    expect(waits.every((wait) => wait >= 0)).toBe(true);
  });

  it("runs stages in order for their durations and stops by duration", async () => {
    const plan: LoadPlan = {
      segments: [
        { kind: "rate", rate: 10, burstiness: 1e9, durationMs: 10_000 },
        { kind: "concurrency", concurrency: 4, durationMs: 5_000 },
        { kind: "rate", rate: 40, burstiness: 1e9, durationMs: 10_000 },
      ],
      maxRequests: null,
      maxDurationMs: 25_000,
      maxConcurrency: null,
    };
    const { tickets, result } = await simulate(plan, () => 100);
    const byStage = [0, 1, 2].map((stage) => tickets.filter((ticket) => ticket.stage === stage));
    expect(byStage[0]!.length).toBeGreaterThanOrEqual(99);
    expect(byStage[0]!.length).toBeLessThanOrEqual(100);
    expect(byStage[1]!.length).toBeGreaterThanOrEqual(4 * 49);
    expect(byStage[1]!.length).toBeLessThanOrEqual(4 * 51);
    expect(byStage[2]!.length).toBeGreaterThanOrEqual(399);
    for (const ticket of byStage[2]!)
      expect(ticket.scheduledAt - result.startedAt).toBeGreaterThanOrEqual(15_000);
    expect(Math.max(...tickets.map((ticket) => ticket.readyAt)) - result.startedAt).toBeLessThan(25_000);
  });
});
