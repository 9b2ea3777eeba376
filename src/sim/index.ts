import type { AddressInfo } from "node:net";
import { systemClock } from "../util/clock.js";
import type { LoopLateness } from "./loop.js";
import {
  applyOverrides,
  checkKvCapacity,
  coerceOverrides,
  resolveProfile,
  type SimProfile,
} from "./profile.js";
import { type ChunkRecord, SimServer } from "./server.js";

/**
 * The simulator's interface: the server (`startSimulator`), its profiles, its command line's flags, and
 * the engine with its tokenizer and `/metrics` text on virtual time. The other folders import sim/ only
 * through this file (`npm run check:imports`).
 */

export {
  engineFlagKnobs,
  engineSwitchKnobs,
  faultForms,
  ignoredEngineFlags,
  ignoredEngineSwitches,
  knobHelp,
  parseFault,
  parseHumanInt,
  parseSettings,
  profileHelp,
} from "./cli-args.js";
export { Engine, eosTokenId } from "./engine.js";

export type { SimProfile } from "./profile.js";
export {
  applyOverrides,
  builtInProfile,
  ProfileError,
  resolveProfile,
} from "./profile.js";
export { chatPromptTokens } from "./protocol.js";

export { detokenize, tokenize } from "./tokenizer.js";

export { clockedEngine, engineMetricsText, type VirtualOutcome } from "./virtual.js";

export interface SimulatorOptions {
  /** Built-in profile name (default "small-gpu"), a profile file path, or a loaded profile. */
  profile?: string | SimProfile;
  /** Overrides, as `--set key=value`. */
  set?: Record<string, string | number | boolean>;
  /** Seeds the per-start speed factor, the step jitter, EOS positions and fault draws. */
  seed?: number;
  /** The simulated GPU's device index: the knob device_speed_factors gives each its own speed (default 0). */
  device?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Served model name, default "sim-model". */
  model?: string;
  /** When set, /v1/* needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Enables POST /reset_prefix_cache (also VLLM_SERVER_DEV_MODE=1). */
  devMode?: boolean;
  /** Keep the truth: when each chunk was really written. */
  recordChunkTimes?: boolean;
  /** Window (ms) before a step boundary slept in short slices instead of on a timer; default 1.2. */
  loopSpinMs?: number;
  /** Read at every step; its increase is kept beside the step's lateness (benchmarks only). */
  loopProbe?: () => number;
  /**
   * An injected exit fault killed the engine. Default: the server closes every connection and stops
   * listening, as a dead process would; the CLI exits the process instead.
   */
  onEngineDeath?: (reason: string) => void;
}

export interface RunningSimulator {
  baseUrl: string;
  port: number;
  close(): Promise<void>;
  /** Truth per chunk, when recordChunkTimes. */
  chunkRecords(): ChunkRecord[];
  /** The effective profile now. */
  profile(): SimProfile;
  /** Same as POST /admin/config: validated, applied atomically. */
  configure(overrides: Record<string, string | number | boolean>): SimProfile;
  /** The step loop's lateness so far (for the bench). */
  loopLateness(): LoopLateness;
  resetLoopLateness(): void;
  /** Settles when the server stopped: close() or an injected engine death. */
  readonly closed: Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  let profile = resolveProfile(options.profile);
  const overrides = coerceOverrides(options.set ?? {});
  if (Object.keys(overrides).length > 0) {
    profile = applyOverrides(profile, overrides, "--set");
  }
  // As vLLM: a KV cache that cannot hold one max_model_len request refuses to start.
  checkKvCapacity(profile, `profile ${profile.name}`);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let server: SimServer | undefined;
  const close = async () => {
    if (server) await server.close();
    resolveClosed();
  };
  server = new SimServer({
    profile,
    seed: options.seed ?? 0,
    device: options.device ?? 0,
    model: options.model ?? "sim-model",
    apiKey: options.apiKey,
    devMode: options.devMode ?? process.env.VLLM_SERVER_DEV_MODE === "1",
    recordChunkTimes: options.recordChunkTimes ?? false,
    clock: systemClock,
    spinMs: options.loopSpinMs,
    loopProbe: options.loopProbe,
    onEngineDeath: (reason) => {
      if (options.onEngineDeath) options.onEngineDeath(reason);
      else void close();
    },
  });
  const host = options.host ?? "127.0.0.1";
  const http = server.http;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    // A deep accept backlog: a benchmark opens hundreds of connections at once, and SYNs dropped from a
    // full backlog come back only after a 1 s retransmit, which would read as server latency.
    http.listen({ port: options.port ?? 0, host, backlog: 4096 }, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const running = server;
  return {
    baseUrl: `http://${urlHost}:${port}`,
    port,
    close,
    chunkRecords: () => running.chunkLog.slice(),
    profile: () => ({ ...running.profile }),
    configure: (set) => running.setProfile(coerceOverrides(set), "configure()"),
    loopLateness: () => running.loop.latency(),
    resetLoopLateness: () => running.loop.resetLatency(),
    closed,
  };
}
