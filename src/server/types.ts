import type { ServerLifecycle } from "../config/schema.js";
import type { ServerStart } from "./server-start.js";
import type { TelemetrySampler } from "./telemetry.js";

/**
 * The seam between the runner (which measures) and the launchers (which start, watch and stop servers).
 * The runner only sees these interfaces; `--base-url` and every `server.kind` provide them.
 */
interface ServerEndpoint {
  /** e.g. http://127.0.0.1:8000 (no trailing slash). */
  readonly baseUrl: string;
  /** Where Prometheus text is scraped; usually baseUrl + "/metrics". */
  readonly metricsUrl: string;
  /** Sent as `Authorization: Bearer` when set. Never written to any file. */
  readonly apiKey?: string;
}

export interface ServerSession {
  readonly endpoint: ServerEndpoint;
  /** The server start this session measures on (server-start.ts): recorded in every run's run.json. */
  readonly start: ServerStart;
  /** Conditions of this server (version, model, max_model_len, image digest, GPU, ...) for run.json. */
  fingerprint(): Promise<Record<string, unknown>>;
  /**
   * Resolves (never rejects) when the server dies on its own (process exit, container stop): the runner
   * uses it to mark a run cut short by a crash instead of blaming the server's latency.
   */
  readonly exited: Promise<{ reason: string }>;
  /** Stops the server whatever state it is in; safe to call twice. */
  stop(): Promise<void>;
  /** The server log kept with the results, written through the job's output seam (launched servers). */
  readonly logFile?: string;
  /** Samples /metrics (and nvidia-smi for a local GPU server) until the returned sampler is stopped. */
  startTelemetry?(intervals: { metricsIntervalMs: number; gpuIntervalMs: number }): TelemetrySampler;
}

/**
 * One server's devices on a runner with several (config runner.devices): `slot` is its position in that
 * list (ports are offset by it), `spec` the devices as written ("3", or "0,1" for a server on two).
 */
export interface ServerDevice {
  readonly slot: number;
  readonly spec: string;
}

/** The GPU indices of a device spec ("0,1" -> [0, 1]). */
export function deviceIndices(device: ServerDevice): number[] {
  return device.spec.split(",").map(Number);
}

export interface ServerStartContext {
  readonly cell: string;
  /** Run index when the lifecycle is per-run; undefined for a server shared by all runs of a cell. */
  readonly run?: number;
  /** Directory where the launcher writes its log (through the job's output seam) and telemetry. */
  readonly logDir: string;
  /** The devices this server runs on (runner.devices); absent: the GPUs the server config names. */
  readonly device?: ServerDevice;
}

export interface ServerProvider {
  /** Whether each run gets its own server (per-run), a cell shares one (per-cell), or every cell of the side (per-side). */
  readonly lifecycle: ServerLifecycle;
  start(context: ServerStartContext): Promise<ServerSession>;
  /** Stops every server this provider started and has not stopped (signal handlers, finally blocks). */
  stopAll?(): Promise<void>;
}
