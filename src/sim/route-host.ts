import type { MonotonicClock } from "../util/clock.js";
import type { Random } from "../util/random.js";
import type { ActiveRequest, RequestHost } from "./active-request.js";
import type { Engine } from "./engine.js";
import type { HttpMetrics } from "./http-metrics.js";
import type { StepLoop } from "./loop.js";
import type { SimProfile } from "./profile.js";
import type { Histogram } from "./stats.js";

/** The server's settings the route handlers read (part of `SimServerOptions`). */
export interface RouteOptions {
  seed: number;
  model: string;
  apiKey: string | undefined;
  devMode: boolean;
  recordChunkTimes: boolean;
  clock: MonotonicClock;
}

/**
 * What the route handlers (`routes.ts`, `generation.ts`, `admin.ts`, `model-routes.ts`) read and call of
 * the server they answer for; `SimServer` implements it, so the handlers never import the server.
 */
export interface RouteHost extends RequestHost {
  readonly options: RouteOptions;
  /** An injected fault ended the server: connections are dropped unanswered. */
  readonly dead: boolean;
  readonly engine: Engine;
  readonly loop: Pick<StepLoop, "wake">;
  readonly httpMetrics: HttpMetrics;
  /** Unix seconds the server started: the metrics' `_created` samples. */
  readonly createdAt: number;
  readonly completedRequests: number;
  /** The seeded draws of the injected faults. */
  readonly faultRandom: Random;
  /** The requests in flight, by response id. */
  readonly active: Map<string, ActiveRequest>;
  /** Within the profile's startup delay: health and generation answer 503. */
  starting(): boolean;
  /** Every step's lateness since the server started (sim:step_lateness_seconds). */
  stepLatenessHistogram(): Histogram;
  /** The profile with the overrides applied (`where` names them in errors); throws ProfileError. */
  setProfile(overrides: Record<string, unknown>, where: string): SimProfile;
}
