import { join } from "node:path";
import { type ControlClient, createControlClient } from "../client/stream-client.js";
import { type CellConfig, type Config, isFileBacked } from "../config/schema.js";
import { selectCells } from "../config/select-cells.js";
import type { Outbound } from "../server/outbound.js";
import type { ServerProvider, ServerSession } from "../server/types.js";
import { InputError } from "../util/errors.js";
import { calibrateTokenModel, checkPromptLengths } from "../workload/calibrate.js";
import type { ChatMessage } from "../workload/dataset-file.js";
import { defaultTokenModel, type TokenModel } from "../workload/token-model.js";
import { describeTraceRead } from "../workload/trace-file.js";
import { createWorkload, type Workload } from "../workload/workload.js";
import { type CellContext, prepareCell } from "./cell-context.js";
import { runExternalTask } from "./external-task.js";
import { type ProgressSink, runName, runPosition, silentProgress } from "./progress.js";
import { type OutputFormat, runOnce } from "./run-once.js";
import type { RunRecorder } from "./run-recorder.js";

export interface RunCellsOptions<Recorded> {
  config: Config;
  /** Where servers come from: `baseUrlProvider(...)` for --base-url, or a launcher for `server.kind`. */
  provider: ServerProvider;
  /** Results go to outDir/<cell>/run-<k>/. */
  outDir: string;
  /** Directory that relative dataset paths are resolved from (the config file's directory). */
  baseDir: string;
  /** Names of the cells to run; all when omitted. */
  cells?: readonly string[];
  /** Runs per cell; config.repeats.min when omitted. */
  runs?: number;
  /** First run index (for adding runs to an existing directory); 0 when omitted. */
  firstRun?: number;
  /** Per cell, the index of its first run (`run --append` after existing runs); wins over firstRun. */
  firstRunByCell?: Readonly<Record<string, number>>;
  /** Per cell, its number of runs (a cell split over devices); wins over runs. */
  runsByCell?: Readonly<Record<string, number>>;
  formats?: readonly OutputFormat[];
  /** Summarises each finished run and writes its run.json (src/app/run-cells.ts injects the standard one). */
  recorder: RunRecorder<Recorded>;
  /**
   * The job's output seam (server/outbound.ts), built at its root from its one secret set: every file of
   * every run is written through it, and the server's fingerprint names each secret by its `${NAME}`.
   */
  outbound: Outbound;
  /** Label written into run.json (e.g. baseline or candidate). */
  side?: string;
  progress?: ProgressSink;
  /** Polled between requests; when true the current run ends early (its data is kept) and no more start. */
  shouldAbort?: () => boolean;
  /**
   * An interrupt (SIGINT/SIGTERM, see server/signals.ts): when it aborts, the current run stops sending,
   * its requests in flight end as "aborted", its run.json is written with `flags.interrupted` set to the
   * abort's reason (compare excludes it), and no more runs start.
   */
  signal?: AbortSignal;
  /** After how long without a chunk a request in flight is reported as stalled (default 30 s). */
  stallReportMs?: number;
  /** Fit prompt lengths to the server's tokenizer with POST /tokenize (default true). */
  calibrate?: boolean;
  /**
   * Keeps per-cell sessions (and their calibration) open across calls, for callers that measure one run
   * at a time (interleaved A/B): runCells leaves them open, the caller ends them with `cache.close()`.
   */
  sessions?: SessionCache;
  /** Called right before each run's first measured dispatch and after its last completion (benchmarks). */
  /** The measured phase's start is the origin of the times in requests.jsonl (epochMs: its Unix time, sub-ms). */
  onMeasuredPhase?: (edge: "start" | "end", epochMs: number) => void;
  /** The environment of the external task commands (quality.tasks.external); the process's when omitted. */
  env?: Readonly<Record<string, string | undefined>>;
}

interface OpenSession {
  session: ServerSession;
  control: ControlClient;
  fingerprint: Record<string, unknown>;
}

export interface CellState {
  shared: OpenSession | null;
  tokenModel: TokenModel | null;
  lengthNote: string | null | undefined;
}

/**
 * The one server of a provider under the per-side lifecycle, shared by every cell (one config: one set of
 * engine flags), and the cell it served last: a cell that follows another on it starts with a prefix-cache
 * reset, so it does not inherit the other cell's cache.
 */
export interface SideState {
  open: OpenSession | null;
  /** The cell the open server served last (null: none yet, a fresh server). */
  cell: string | null;
  /** The cell the open server was started for (its log is in that cell's directory). */
  startedFor: string | null;
  /** The server refused the reset once: every later cell gets a server of its own (per-cell). */
  resetRefused: string | null;
}

/** Per-cell server sessions and calibration kept between runCells calls (see RunCellsOptions.sessions). */
export class SessionCache {
  private readonly byProvider = new Map<ServerProvider, Map<string, CellState>>();
  private readonly sides = new Map<ServerProvider, SideState>();

  /** The per-side server of one provider (see SideState). */
  side(provider: ServerProvider): SideState {
    let state = this.sides.get(provider);
    if (!state) {
      state = newSideState();
      this.sides.set(provider, state);
    }
    return state;
  }

  /** The state of one cell on one provider (two sides of an A/B run have separate providers). */
  state(provider: ServerProvider, cell: string): CellState {
    let cells = this.byProvider.get(provider);
    if (!cells) {
      cells = new Map();
      this.byProvider.set(provider, cells);
    }
    let state = cells.get(cell);
    if (!state) {
      state = { shared: null, tokenModel: null, lengthNote: undefined };
      cells.set(cell, state);
    }
    return state;
  }

  /** Stops every session still open. */
  async close(): Promise<void> {
    for (const cells of this.byProvider.values()) {
      for (const state of cells.values()) {
        const open = state.shared;
        state.shared = null;
        if (open) await closeSession(open);
      }
    }
    this.byProvider.clear();
    for (const side of this.sides.values()) await closeSide(side);
    this.sides.clear();
  }
}

function newSideState(): SideState {
  return { open: null, cell: null, startedFor: null, resetRefused: null };
}

async function closeSide(side: SideState): Promise<void> {
  const open = side.open;
  side.open = null;
  side.cell = null;
  side.startedFor = null;
  if (open) await closeSession(open);
}

async function closeSession(handle: OpenSession): Promise<void> {
  await handle.control.close();
  await handle.session.stop();
}

export interface RunOutput<Recorded> {
  cell: string;
  run: number;
  dir: string;
  /** The recorder's summary of the run (run.json's content with the standard recorder). */
  file: Recorded;
}

export interface RunCellsResult<Recorded> {
  runs: RunOutput<Recorded>[];
}

/**
 * Runs every selected cell N times against servers from the provider and writes each run's evidence.
 * Per-side lifecycle: one session for every cell, the prefix cache reset where a cell follows another
 * (a server that refuses the reset is replaced by a new one for each further cell, and the runs say
 * so); per-cell: one session per cell, its fingerprint taken once; per-run: a session per run.
 */
export async function runCells<Recorded>(
  options: RunCellsOptions<Recorded>,
): Promise<RunCellsResult<Recorded>> {
  const { config, provider } = options;
  const signal = options.signal;
  const scope: RunScope<Recorded> = {
    options,
    progress: options.progress ?? silentProgress,
    shouldAbort:
      signal || options.shouldAbort
        ? () => signal?.aborted === true || options.shouldAbort?.() === true
        : undefined,
    side: provider.lifecycle === "per-side" ? (options.sessions?.side(provider) ?? newSideState()) : null,
    outputs: [],
    externalFailures: [],
  };
  try {
    for (const cell of selectCells(config, options.cells)) {
      if (scope.shouldAbort?.()) break;
      await runCell(scope, cell);
    }
  } finally {
    if (!options.sessions && scope.side !== null) await closeSide(scope.side);
  }
  if (scope.externalFailures.length > 0) {
    // Measuring went on; the runs are written. The failure is bad input (the command or its paths): exit 2.
    throw new InputError(
      `${scope.externalFailures.join("\n")}\n${scope.outputs.length} run(s) measured and kept in ${options.outDir}`,
    );
  }
  return { runs: scope.outputs };
}

/** One runCells call: its options, its interrupt, the per-side server, and what it measured so far. */
interface RunScope<Recorded> {
  readonly options: RunCellsOptions<Recorded>;
  readonly progress: ProgressSink;
  readonly shouldAbort: (() => boolean) | undefined;
  /** The server every cell shares under the per-side lifecycle; null under the others. */
  readonly side: SideState | null;
  readonly outputs: RunOutput<Recorded>[];
  /** Failed external task commands (bad input), reported once every run is written. */
  readonly externalFailures: string[];
}

/** A cell's runs: each on the server its lifecycle gives, with the cell's calibration and workload. */
async function runCell<Recorded>(scope: RunScope<Recorded>, cell: CellConfig): Promise<void> {
  const { options } = scope;
  const { config, provider } = options;
  const firstRun = options.firstRunByCell?.[cell.name] ?? options.firstRun ?? 0;
  const runs = options.runsByCell?.[cell.name] ?? options.runs ?? config.repeats.min;
  const context = await prepareCell(config, cell, options.baseDir);
  // Sessions and calibration live for this call, or in the caller's cache across calls.
  const state: CellState = options.sessions
    ? options.sessions.state(provider, cell.name)
    : { shared: null, tokenModel: null, lengthNote: undefined };
  const servers = cellServers(scope, cell, state);
  try {
    for (let k = firstRun; k < firstRun + runs; k++) {
      if (scope.shouldAbort?.()) break;
      const handle = await servers.acquire(k);
      try {
        const workload = await cellWorkload(scope, cell, context, state, handle);
        scope.progress.message(
          `${cell.name}: ${runPosition(k, firstRun, runs)} against ${handle.session.endpoint.baseUrl}`,
        );
        const ran = await measureRun(scope, { cell, context, state, handle, workload, k, firstRun, runs }, [
          ...(k === firstRun ? servers.sharingNotes : []),
        ]);
        // The external task commands of the cell run once per side, after its first run, on its server.
        if (k === 0 && !ran.serverCrashed && !scope.shouldAbort?.())
          await runExternalTasks(scope, cell, k, handle);
        // The server died: the next run gets a new one rather than a dead endpoint.
        if (ran.serverCrashed) await dropServer(scope, state, handle);
        scope.progress.message(options.recorder.describe(ran.file));
      } finally {
        if (provider.lifecycle === "per-run") await closeSession(handle);
      }
    }
  } finally {
    if (!options.sessions && state.shared) await closeSession(state.shared);
  }
}

/**
 * The servers of a cell's runs, as its provider's lifecycle gives them: one per run, one for the cell, or
 * the side's shared one, its prefix cache reset when it served another cell before (`sharingNotes` say so,
 * for the cell's first run).
 */
function cellServers<Recorded>(
  scope: RunScope<Recorded>,
  cell: CellConfig,
  state: CellState,
): { acquire(run: number): Promise<OpenSession>; sharingNotes: readonly string[] } {
  const { provider } = scope.options;
  const side = scope.side;
  const sharingNotes: string[] = [];
  const open = (run?: number) => openSession(scope, cell, run);
  return {
    sharingNotes,
    async acquire(k) {
      if (provider.lifecycle === "per-run") return open(k);
      if (provider.lifecycle === "per-cell" || side === null) {
        state.shared ??= await open();
        return state.shared;
      }
      if (side.open !== null && side.cell !== cell.name)
        sharingNotes.push(await resetForCell(scope, cell, side, side.open));
      if (side.open === null) {
        side.open = await open();
        side.startedFor = cell.name;
      }
      side.cell = cell.name;
      return side.open;
    },
  };
}

/**
 * The shared server served another cell: reset its prefix cache, or, where it cannot be reset, close it
 * so this cell gets a new server rather than inherit another cell's cache. Returns the run's note.
 */
async function resetForCell<Recorded>(
  scope: RunScope<Recorded>,
  cell: CellConfig,
  side: SideState,
  open: OpenSession,
): Promise<string> {
  const refused = side.resetRefused ?? (await resetPrefixCache(open.control));
  if (refused === null)
    return `server shared with the cells before it on this side (started for ${side.startedFor}; per-side lifecycle): prefix cache reset before this cell`;
  side.resetRefused = refused;
  scope.progress.message(
    `${cell.name}: the prefix cache of the server shared by the cells could not be reset (${refused}); starting a new server for this cell`,
  );
  await closeSide(side);
  return `the shared server's prefix cache could not be reset (${refused}): a new server for this cell, as under lifecycle per-cell`;
}

/** Starts a server for the cell (for run `run` under per-run), with its control client and fingerprint. */
async function openSession<Recorded>(
  scope: RunScope<Recorded>,
  cell: CellConfig,
  run: number | undefined,
): Promise<OpenSession> {
  // An interrupt during a start-up (minutes for vLLM) ends the wait at once; the caller's stopAll()
  // then stops the server still starting.
  const session = await untilAborted(
    scope.options.provider.start({
      cell: cell.name,
      logDir: join(scope.options.outDir, cell.name),
      ...(run === undefined ? {} : { run }),
    }),
    scope.options.signal,
    "while the server was starting",
  );
  const control = createControlClient({
    baseUrl: session.endpoint.baseUrl,
    ...(session.endpoint.apiKey ? { apiKey: session.endpoint.apiKey } : {}),
  });
  // Recorded with references, not values: a server may echo a secret in its version or model names.
  return { session, control, fingerprint: scope.options.outbound.references(await session.fingerprint()) };
}

/**
 * The cell's workload on this server: its token model calibrated once (POST /tokenize, not for a file's
 * prompts) and its prompt lengths checked once on the server's tokenizer.
 */
async function cellWorkload<Recorded>(
  scope: RunScope<Recorded>,
  cell: CellConfig,
  context: CellContext,
  state: CellState,
  handle: OpenSession,
): Promise<Workload> {
  const model = scope.options.config.model.name;
  state.tokenModel ??=
    scope.options.calibrate === false || isFileBacked(cell.dataset)
      ? defaultTokenModel
      : await calibrateTokenModel(tokenCounter(handle.control, model, cell.endpoint), context.seed);
  const tokenModel = state.tokenModel;
  const workload = createWorkload(cell, {
    seed: context.seed,
    tokenModel,
    ...(context.file ? { file: context.file } : {}),
  });
  if (tokenModel.source === "tokenize" && state.lengthNote === undefined)
    state.lengthNote = await describeLengthCheck(handle.control, model, cell.endpoint, workload);
  return workload;
}

/** One run of a cell, measured and recorded (marked interrupted when an interrupt cut it short). */
async function measureRun<Recorded>(
  scope: RunScope<Recorded>,
  run: {
    cell: CellConfig;
    context: CellContext;
    state: CellState;
    handle: OpenSession;
    workload: Workload;
    k: number;
    firstRun: number;
    runs: number;
  },
  sharingNotes: readonly string[],
): Promise<{ file: Recorded; serverCrashed: boolean }> {
  const { options, progress, shouldAbort } = scope;
  const { cell, context, state, handle, k, firstRun } = run;
  const dir = join(options.outDir, cell.name, runName(k));
  const ran = await runOnce({
    context,
    workload: run.workload,
    session: handle.session,
    control: handle.control,
    runIndex: k,
    runs: run.runs,
    dir,
    formats: options.formats ?? [],
    recorder: options.recorder,
    outbound: options.outbound,
    progress: firstRun === 0 ? progress : withFirstRun(progress, firstRun),
    serverFingerprint: handle.fingerprint,
    notes: [
      ...(state.lengthNote ? [state.lengthNote] : []),
      ...(context.file?.trace ? [describeTraceRead(context.file.trace)] : []),
      ...sharingNotes,
    ],
    ...(options.side ? { side: options.side } : {}),
    ...(shouldAbort ? { shouldAbort } : {}),
    ...(options.onMeasuredPhase ? { onMeasuredPhase: options.onMeasuredPhase } : {}),
    ...(options.stallReportMs !== undefined ? { stallReportMs: options.stallReportMs } : {}),
  });
  const signal = options.signal;
  const file =
    signal?.aborted && ran.cutShort
      ? options.recorder.markInterrupted(
          dir,
          ran.recorded,
          String(signal.reason ?? "interrupt"),
          options.outbound,
        )
      : ran.recorded;
  scope.outputs.push({ cell: cell.name, run: k, dir, file });
  return { file, serverCrashed: ran.serverCrashed };
}

/** The cell's external task commands (quality.tasks.external), after its first run, on its server. */
async function runExternalTasks<Recorded>(
  scope: RunScope<Recorded>,
  cell: CellConfig,
  k: number,
  handle: OpenSession,
): Promise<void> {
  const { options, progress } = scope;
  const signal = options.signal;
  for (const spec of options.config.quality.tasks.external.filter((s) => s.cell === cell.name)) {
    progress.message(`${cell.name}: external task "${spec.name}" against ${handle.session.endpoint.baseUrl}`);
    try {
      const result = await runExternalTask(spec, {
        cell: cell.name,
        run: k,
        dir: join(options.outDir, cell.name, runName(k)),
        baseUrl: handle.session.endpoint.baseUrl,
        model: options.config.model.name,
        outbound: options.outbound,
        ...(options.env ? { env: options.env } : {}),
        ...(signal ? { signal } : {}),
      });
      progress.message(
        `${cell.name}: external task "${spec.name}": accuracy ${(result.accuracy * 100).toFixed(1)}% of ${result.count}`,
      );
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      progress.message(error.message);
      // An interrupt is no bad input: the caller reports it (the runs are kept).
      if (signal?.aborted) break;
      scope.externalFailures.push(error.message);
    }
  }
}

/** Stops a server that crashed, wherever it is kept (the side's, the cell's), so the next run starts another. */
async function dropServer<Recorded>(
  scope: RunScope<Recorded>,
  state: CellState,
  handle: OpenSession,
): Promise<void> {
  if (scope.side !== null && scope.side.open === handle) await closeSide(scope.side);
  if (state.shared === handle) {
    state.shared = null;
    await closeSession(handle);
  }
}

/**
 * Resets the server's prefix cache (vLLM: POST /reset_prefix_cache, served in dev mode); null when it did,
 * else why not.
 */
async function resetPrefixCache(control: ControlClient): Promise<string | null> {
  try {
    const response = await control.post("/reset_prefix_cache", {});
    return response.status === 200 ? null : `POST /reset_prefix_cache answered HTTP ${response.status}`;
  } catch (error) {
    return `POST /reset_prefix_cache failed: ${(error as Error).message}`;
  }
}

/** Progress events of runs numbered from `firstRun` (an `--append`), so "i of n" counts this invocation. */
function withFirstRun(progress: ProgressSink, firstRun: number): ProgressSink {
  return {
    update: (event) => progress.update({ ...event, firstRun }),
    message: (text) => progress.message(text),
  };
}

/** The promise, or a rejection as soon as `signal` aborts (the promise itself keeps running). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, doing: string): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(`interrupted by ${String(signal.reason)} ${doing}`));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

const lengthCheckSample = 16;

async function describeLengthCheck(
  control: ControlClient,
  model: string,
  endpoint: CellConfig["endpoint"],
  workload: Workload,
): Promise<string | null> {
  const prompts = Array.from({ length: lengthCheckSample }, (_, index) => workload.request(index)).flatMap(
    (request) =>
      request.targetInputTokens === null
        ? []
        : [
            {
              // Every message as sent: a session turn's target counts its system prompt too.
              prompt: request.prompt ?? request.messages ?? "",
              target: request.targetInputTokens,
            },
          ],
  );
  const check = await checkPromptLengths(tokenCounter(control, model, endpoint), prompts);
  if (check === null) return null;
  return `prompt lengths checked on the server's tokenizer: ${check.checked} prompts, max error ${check.maxAbsError} tokens, mean ${check.meanAbsError.toFixed(2)}`;
}

function tokenCounter(control: ControlClient, model: string, endpoint: CellConfig["endpoint"]) {
  return async (prompt: string | readonly ChatMessage[]): Promise<number | null> => {
    const text = typeof prompt === "string" ? prompt : prompt.map((message) => message.content).join("\n");
    const body =
      endpoint === "chat"
        ? { model, messages: typeof prompt === "string" ? [{ role: "user", content: prompt }] : prompt }
        : { model, prompt: text };
    try {
      const response = await control.post("/tokenize", body);
      if (response.status !== 200) return null;
      const parsed = JSON.parse(response.text) as { count?: unknown; tokens?: unknown };
      if (typeof parsed.count === "number") return parsed.count;
      return Array.isArray(parsed.tokens) ? parsed.tokens.length : null;
    } catch {
      return null;
    }
  };
}
