import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRequestRecords } from "../../bench/kit/request-records.js";
import { runCells } from "../../src/app/run-cells.js";
import { dispatchLoad, type IdleElision, type Ticket } from "../../src/runner/dispatch.js";
import type { LoadPlan } from "../../src/runner/load-plan.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import { startSimulator } from "../../src/sim/index.js";
import { noSecrets } from "../job-outbound.js";
import { VirtualClock } from "../util/virtual-clock.js";
import { testConfig } from "./helpers/run-config.js";

/** A request on the schedule's timeline: when it was sent, when it ended, and who was in flight then. */
interface Sent {
  index: number;
  scheduledAt: number;
  sentAt: number;
  endAt: number;
  /** Indices of the requests in flight when it was sent. */
  companions: number[];
  /** Idle time elided before it, and when it was sent and ended on the clock itself. */
  shift: number;
  sentReal: number;
  endReal: number;
}

/**
 * Dispatches a plan on virtual time against a server whose response time depends only on the request
 * (`serviceMs`) and on how many others are in flight when it is sent (`perCompanionMs`), as batching does.
 */
async function simulate(
  plan: LoadPlan,
  elideIdle: IdleElision | undefined,
  serviceMs: (index: number) => number,
  perCompanionMs = 0,
) {
  const clock = new VirtualClock();
  const inFlight = new Set<number>();
  const sent: Sent[] = [];
  const result = await clock.runUntilSettled(
    dispatchLoad({
      plan,
      clock,
      seed: 7,
      ...(elideIdle ? { elideIdle } : {}),
      send: async (ticket: Ticket) => {
        const shift = ticket.elidedMs ?? 0;
        const record: Sent = {
          index: ticket.index,
          scheduledAt: ticket.scheduledAt + shift,
          sentAt: clock.now() + shift,
          endAt: 0,
          companions: [...inFlight].sort((a, b) => a - b),
          shift,
          sentReal: clock.now(),
          endReal: 0,
        };
        inFlight.add(ticket.index);
        await clock.sleepUntil(
          clock.now() + serviceMs(ticket.index) + perCompanionMs * record.companions.length,
        );
        inFlight.delete(ticket.index);
        record.endAt = clock.now() + shift;
        record.endReal = clock.now();
        sent.push(record);
        return clock.now();
      },
    }),
  );
  sent.sort((a, b) => a.index - b.index);
  return { result, sent, wallMs: clock.now() };
}

/** A low-load cell: 240 requests at 0.5 req/s (8 minutes of schedule), responses of 0.4-4.4 s. */
const lowLoad: LoadPlan = {
  segments: [{ kind: "rate", rate: 0.5, burstiness: 1, durationMs: null }],
  maxRequests: 240,
  maxDurationMs: null,
  maxConcurrency: 256,
};
const service = (index: number) => 400 + ((index * 7919) % 4000);

describe("idle-gap elision on virtual time", () => {
  it("cuts the idle wall-clock of a low-load run and leaves every request as on real time", async () => {
    const real = await simulate(lowLoad, undefined, service, 50);
    const elided = await simulate(lowLoad, { settleMs: 100 }, service, 50);
    expect(real.result.elidedMs).toBe(0);
    // On real time the run takes its schedule: 480 s plus the last response.
    expect(real.wallMs).toBeGreaterThan(480_000);
    // Elided: the idle time is gone, the run takes a fraction of the wall-clock ...
    expect(elided.wallMs).toBeLessThan(0.75 * real.wallMs);
    expect(elided.wallMs + elided.result.elidedMs).toBeCloseTo(real.wallMs, 6);
    // ... and on the schedule's timeline every request was scheduled, sent and ended when it was on
    // real time, with the same requests in flight beside it (the same batching, the same queue).
    expect(elided.sent).toHaveLength(240);
    for (const [i, request] of elided.sent.entries()) {
      const twin = real.sent[i]!;
      expect(request.companions).toEqual(twin.companions);
      expect(request.scheduledAt).toBeCloseTo(twin.scheduledAt, 6);
      expect(request.sentAt).toBeCloseTo(twin.sentAt, 6);
      expect(request.endAt - request.sentAt).toBeCloseTo(twin.endAt - twin.sentAt, 6);
    }
    // The run's last ready time is on the schedule's timeline too (the achieved rate reads as on real time).
    expect(elided.result.lastReadyAt).toBeCloseTo(real.result.lastReadyAt!, 6);
  });

  it("never sends early while a request is in flight or waits for a slot", async () => {
    // Responses longer than the gaps keep something in flight all the time: nothing to elide but the
    // wait for the first arrival (the server is idle before it).
    const busy = await simulate(lowLoad, { settleMs: 100 }, () => 60_000);
    expect(busy.sent[0]!.sentReal).toBeCloseTo(100, 6);
    expect(busy.result.elidedMs).toBeCloseTo(busy.sent[0]!.sentAt - 100, 6);
    expect(new Set(busy.sent.map((request) => request.shift)).size).toBe(1);
    // One slot (max_concurrency 1) and slow responses: arrivals queue, and none is moved while they do.
    const queued = { ...lowLoad, maxConcurrency: 1, maxRequests: 40 };
    const real = await simulate(queued, undefined, () => 2_500);
    const elided = await simulate(queued, { settleMs: 100 }, () => 2_500);
    for (const [i, request] of elided.sent.entries()) {
      expect(request.companions).toEqual(real.sent[i]!.companions);
      expect(request.sentAt).toBeCloseTo(real.sent[i]!.sentAt, 6);
    }
  });

  it("waits settleMs after the last response before sending one whose time is later", async () => {
    const elided = await simulate(lowLoad, { settleMs: 250 }, service);
    let jumps = 0;
    for (const [i, request] of elided.sent.entries()) {
      const before = i === 0 ? 0 : elided.sent[i - 1]!.shift;
      if (request.shift <= before + 1e-9) continue;
      jumps++;
      // Time was cut before this request: nothing was in flight, and the last response ended
      // settleMs before it was sent, on the clock itself.
      expect(request.companions).toEqual([]);
      const lastEnd = Math.max(0, ...elided.sent.slice(0, i).map((other) => other.endReal));
      expect(request.sentReal - lastEnd).toBeCloseTo(250, 6);
    }
    expect(jumps).toBeGreaterThan(50);
  });

  it("keeps stages and durations on the schedule's timeline", async () => {
    const stages: LoadPlan = {
      segments: [
        { kind: "rate", rate: 0.5, burstiness: 1, durationMs: 120_000 },
        { kind: "rate", rate: 4, burstiness: 1, durationMs: 30_000 },
        { kind: "rate", rate: 0.5, burstiness: 1, durationMs: 120_000 },
      ],
      maxRequests: null,
      maxDurationMs: 270_000,
      maxConcurrency: null,
    };
    const real = await simulate(stages, undefined, () => 800);
    const elided = await simulate(stages, { settleMs: 100 }, () => 800);
    expect(elided.sent.map((request) => request.index)).toEqual(real.sent.map((request) => request.index));
    expect(elided.sent.map((request) => Math.round(request.scheduledAt))).toEqual(
      real.sent.map((request) => Math.round(request.scheduledAt)),
    );
    expect(elided.wallMs).toBeLessThan(0.5 * real.wallMs);
  });
});

describe("idle-gap elision through runCells against the simulator", () => {
  const cell = {
    name: "low",
    endpoint: "completions",
    dataset: { type: "synthetic", input_tokens: 16, output_tokens: 8 },
    load: { type: "rate", rate: 4, burstiness: 1 },
    size: { requests: 8 },
    warmup: { requests: 0 },
  };

  it("records the schedule and the time it cut, and keeps durationS on the schedule's timeline", async () => {
    const sim = await startSimulator({ model: "m", profile: "noiseless" });
    const dir = mkdtempSync(join(tmpdir(), "vpg-elide-"));
    try {
      const provider = baseUrlProvider({ baseUrl: sim.baseUrl, model: { name: "m" } });
      const run = async (schedule: "idle-elided" | "real-time") => {
        const config = testConfig([cell], { runner: { schedule } });
        const result = await runCells({
          outbound: noSecrets,
          config,
          provider,
          outDir: join(dir, schedule),
          baseDir: dir,
          runs: 1,
        });
        return result.runs[0]!.file;
      };
      const elided = await run("idle-elided");
      const real = await run("real-time");
      expect(real.load.schedule).toEqual({ kind: "real-time", elidedS: 0, wallClockS: real.durationS });
      expect(real.fingerprint.workload).toMatchObject({ schedule: { kind: "real-time" } });
      expect(elided.fingerprint.workload).toMatchObject({ schedule: { kind: "idle-elided", settleMs: 100 } });
      const schedule = elided.load.schedule!;
      expect(schedule).toMatchObject({ kind: "idle-elided", settleMs: 100 });
      // 8 arrivals over 2 s of schedule, each answered in a few ms: most of the schedule is idle.
      expect(elided.durationS).toBeGreaterThan(1.5);
      expect(schedule.elidedS).toBeGreaterThan(0.5 * elided.durationS);
      expect(schedule.wallClockS + schedule.elidedS).toBeCloseTo(elided.durationS, 6);
      // The achieved rate reads as on real time (the same schedule's duration; within the sends' own lag
      // on a loaded machine).
      expect(Math.abs(Math.log(elided.load.achievedRate / real.load.achievedRate))).toBeLessThan(0.1);
      const byIndex = (list: ReturnType<typeof readRequestRecords>) => list.sort((a, b) => a.index - b.index);
      const records = byIndex(readRequestRecords(join(dir, "idle-elided"), "low"));
      expect(records.some((record) => (record.elidedMs ?? 0) > 0)).toBe(true);
      // Times of the records are on the schedule's timeline: the arrivals are the real-time ones, apart
      // from the moment each run's schedule starts after its origin (the same for all its requests).
      const realRecords = byIndex(readRequestRecords(join(dir, "real-time"), "low"));
      const offsets = (list: typeof records) =>
        list.map((record) => record.scheduledMs - list[0]!.scheduledMs);
      const realOffsets = offsets(realRecords);
      for (const [i, offset] of offsets(records).entries()) expect(offset).toBeCloseTo(realOffsets[i]!, 2);
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
