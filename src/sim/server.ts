import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { mixSeed, type Random, seededRandom } from "../util/random.js";
import type { ActiveRequest, ChunkRecord } from "./active-request.js";
import { Engine, type StepEvent } from "./engine.js";
import type { HttpMetrics } from "./http-metrics.js";
import { HttpResponder } from "./http-responses.js";
import { StepLoop } from "./loop.js";
import { applyOverrides, checkKvCapacity, ProfileError, type SimProfile } from "./profile.js";
import { errorBody, type ProtocolShape, protocolShapeOf } from "./protocol.js";
import type { RouteHost, RouteOptions } from "./route-host.js";
import { handleRequest } from "./routes.js";
import { Histogram } from "./stats.js";

export type { ChunkRecord } from "./active-request.js";

/**
 * Upper bounds (s) of sim:step_lateness_seconds: from well under a step of the demo's engine (35 ms) to
 * the stalls of a starved host (hundreds of ms) and beyond the loop's resync point.
 */
const stepLatenessBuckets = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5,
];

/** Nothing ever notifies it: Atomics.wait on it blocks the process for the fault_stall_ms fault. */
const stallCell = new Int32Array(new SharedArrayBuffer(4));

export interface SimServerOptions extends RouteOptions {
  profile: SimProfile;
  /** The simulated GPU (sim --device K): its device_speed_factors entry. */
  device?: number | undefined;
  spinMs: number | undefined;
  /** See LoopOptions.stepProbe. */
  loopProbe?: () => number;
  /** Called when an injected fault kills the engine (the CLI exits the process). */
  onEngineDeath: (reason: string) => void;
}

/**
 * The simulated vLLM server: the engine and its step loop, the HTTP listener, the requests in flight and
 * the injected faults that end the server. Routing is `routes.ts`, generation `generation.ts`, a
 * response in flight `active-request.ts`, the admin and model routes `admin.ts` and `model-routes.ts`.
 * The members without `private` are read by those modules through `RouteHost` (`route-host.ts`) and
 * `RequestHost` (they are the simulator's own, not an API).
 */
export class SimServer implements RouteHost {
  readonly engine: Engine;
  readonly loop: StepLoop;
  readonly http: Server;
  readonly chunkLog: ChunkRecord[] = [];
  readonly responses: HttpResponder;
  hung = false;
  dead = false;
  /** The requests in flight, by response id. */
  readonly active = new Map<string, ActiveRequest>();
  readonly faultRandom: Random;
  private readonly startedAt: number;
  /** Unix seconds the server started: the metrics' `_created` samples. */
  readonly createdAt = Date.now() / 1000;
  private completedCount = 0;
  private readonly sockets = new Set<Socket>();
  /** Requests with output from the delivery in progress (reused to spare an allocation per step). */
  private readonly touched: ActiveRequest[] = [];
  /** Step deliveries so far (the fault_stall_ms fault counts them). */
  private deliveries = 0;
  /** The loop's lateness samples folded into `stepLateness` so far. */
  private latenessFolded = 0;
  private readonly stepLateness = new Histogram(stepLatenessBuckets);

  constructor(readonly options: SimServerOptions) {
    this.responses = new HttpResponder(options.clock);
    this.engine = new Engine(options.profile, options.seed, options.device ?? 0);
    this.loop = new StepLoop(
      this.engine,
      options.clock,
      (events, rejected) => this.deliver(events, rejected),
      {
        spinMs: options.spinMs,
        stepProbe: options.loopProbe,
      },
    );
    this.faultRandom = seededRandom(mixSeed(options.seed, 0xfa17));
    this.startedAt = options.clock.now();
    this.http = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
      handleRequest(this, req, res).catch((error: unknown) => {
        if (!res.headersSent) this.responses.sendJson(res, 500, errorBody(500, String(error)), "other");
        else res.destroy();
      });
    });
    this.http.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  get profile(): SimProfile {
    return this.engine.config;
  }

  get protocolShape(): ProtocolShape {
    return protocolShapeOf(this.engine.config.vllm_version);
  }

  get httpMetrics(): HttpMetrics {
    return this.responses.httpMetrics;
  }

  /** Requests completed since the server started (the injected exit and hang faults count them). */
  get completedRequests(): number {
    return this.completedCount;
  }

  setProfile(overrides: Record<string, unknown>, where: string): SimProfile {
    const next = applyOverrides(this.engine.config, overrides, where);
    checkKvCapacity(next, where);
    if (next.block_size !== this.engine.config.block_size && this.engine.hasWork()) {
      throw new ProfileError(`${where}: field "block_size": can only change while no request is in flight`);
    }
    this.engine.setProfile(next);
    return next;
  }

  private deliver(events: StepEvent[], rejected: string[]): void {
    // One broken response must not stop the loop that serves every other stream.
    const touched = this.touched;
    for (const event of events) {
      const request = this.active.get(event.id);
      if (!request) continue;
      this.guarded(request, () => request.onEvent(event));
      if (!request.queued) {
        request.queued = true;
        touched.push(request);
      }
    }
    for (const request of touched) {
      request.queued = false;
      this.guarded(request, () => request.flush());
    }
    touched.length = 0;
    for (const id of rejected) this.active.get(id)?.reject();
    const p = this.profile;
    if (p.fault_stall_ms > 0 && ++this.deliveries % p.fault_stall_every_steps === 0) {
      // The whole process stops, as one the host's scheduler starved would: timers, sockets, the loop.
      Atomics.wait(stallCell, 0, 0, p.fault_stall_ms);
    }
  }

  /**
   * Every step's lateness since the server started, in seconds (the simulator-only family
   * sim:step_lateness_seconds on /metrics): the loop's samples not yet counted are folded in when asked.
   * A resetLatency() in between (the benchmark's) restarts the loop's buffer; its unread samples are lost.
   */
  stepLatenessHistogram(): Histogram {
    const { lateness, count } = this.loop.latency();
    if (count < this.latenessFolded) this.latenessFolded = 0;
    for (let index = this.latenessFolded; index < count; index++)
      this.stepLateness.observe(Math.max(0, lateness[index]!) / 1000);
    this.latenessFolded = count;
    return this.stepLateness;
  }

  private guarded(request: ActiveRequest, action: () => void): void {
    try {
      action();
    } catch {
      request.res.destroy();
      this.abort(request);
    }
  }

  completed(request: ActiveRequest): void {
    this.forget(request);
    this.completedCount++;
    const p = this.profile;
    if (p.fault_exit_after_requests > 0 && this.completedCount >= p.fault_exit_after_requests) {
      this.die(`injected fault: the engine exits after ${p.fault_exit_after_requests} requests`);
    }
    if (p.fault_hang_after_requests > 0 && this.completedCount >= p.fault_hang_after_requests)
      this.hung = true;
  }

  forget(request: ActiveRequest): void {
    this.active.delete(request.id);
    this.engine.forget(request.id);
  }

  abort(request: ActiveRequest): void {
    this.engine.abort(request.id, this.options.clock.now());
    this.forget(request);
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.loop.stop();
    setImmediate(() => {
      for (const socket of this.sockets) socket.destroy();
      this.options.onEngineDeath(reason);
    });
  }

  /** Stops everything: the loop, every connection, the listener. */
  async close(): Promise<void> {
    this.loop.stop();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  /** Within the profile's startup delay: health and generation answer 503. */
  starting(): boolean {
    return this.options.clock.now() - this.startedAt < this.profile.startup_delay_s * 1000;
  }
}
