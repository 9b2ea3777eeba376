import { toleranceMargin } from "../stats/margin.js";
import { optimalRunsPerStart } from "../stats/two-level.js";
import { type Alternation, alternationOf } from "./alternation.js";
import { meanBranches } from "./dataset-kinds/fan-out.js";
import { assumedFileSessionTurns, lengthMean } from "./dataset-kinds/fields.js";
import type { TraceReplay } from "./dataset-kinds/trace-fields.js";
import { describeDataset, outputTokensMean, promptTokensMean, sessionShape } from "./dataset-kinds.js";
import { type TemplateAt, templateView } from "./interpolate.js";
import { metricSpecs, type NoiseFamily } from "./metric-names.js";
import { type CellSchedule, cellSchedule, describeSchedule } from "./schedule.js";
import {
  type CellConfig,
  type Config,
  isSearchedCell,
  isSessionDataset,
  isTraceDataset,
  type LoadConfig,
  type ServerLifecycle,
} from "./schema.js";
import {
  describeServer,
  type ServerKind,
  serverKindFacts,
  serverKinds,
  serverLifecycle,
  serverWarnings,
} from "./server-kinds.js";

/**
 * A normalised, human-readable view of a validated config, with a rough GPU-time estimate. Pure: the
 * caller decides where it is printed. Values that came from `${VAR}` are shown as their template.
 */
interface CellSummary {
  name: string;
  endpoint: string;
  dataset: string;
  load: string;
  size: string;
  prefix: string;
  warmup: string;
  /** The schedule its arrivals are timed by (config/schedule.ts). */
  schedule: string;
  /**
   * Expected GPU seconds of one run's measured phase (from the schedule; closed-loop estimated): the
   * schedule's duration minus the idle time the idle-elided schedule is expected to cut.
   */
  estimatedSecondsPerRun: number;
  /** Of the schedule's duration, the idle seconds expected to be elided (0 on real time). */
  estimatedElidedSecondsPerRun: number;
}

export interface ConfigSummary {
  server: string;
  model: string;
  cells: CellSummary[];
  runs: { min: number; max: number };
  /**
   * How a side's runs fall into server starts (repeats.block, "auto" resolved): the group of runs per
   * side and the starts a side has at the first look and at the maximum.
   */
  starts: {
    group: number;
    /** Every group of a side on a server start of its own (repeats.block fresh, or auto's choice). */
    startEachGroup: boolean;
    auto: boolean;
    firstLookPerSide: number;
    maxPerSide: number;
  };
  gate: string;
  warnings: string[];
  /** GPU-minutes per pull request in each mode, and per baseline job, every server start counted (fixed-load cells). */
  gpuMinutes: GpuMinutesEstimate[];
  /** Capacity and sweep cells: their runs are costed apart (capacity-summary.ts). */
  searchedCells: string[];
}

/** Assumed per-stream decode speed for closed-loop estimates; the estimate says so. */
const assumedSecondsPerOutputToken = 0.03;
/**
 * A lone request's speed, for the idle time the idle-elided schedule cuts at low load (a small model on
 * one GPU); the estimate says so.
 */
const assumedLoneSecondsPerOutputToken = 0.01;
const assumedLoneSecondsPerPromptToken = 0.0001;

/** Mean answer tokens of one of the cell's requests (its kind's estimate; a trace's own where read). */
function cellOutputTokensMean(cell: CellConfig, replay: TraceReplay | null = null): number {
  return outputTokensMean(cell.dataset, replay);
}

/**
 * A trace cell's replay as validate reads it from the cell's file (workload/trace-replay.ts), for the cell
 * as given (its size may be the run plan's); null for a cell whose file was not read, which is then
 * estimated from its config alone.
 */
export type TraceReplays = (cell: CellConfig) => TraceReplay | null;

const noTraceReplays: TraceReplays = () => null;

/** True when a cell's arrivals come from its trace's timestamps (an open-loop load of a trace). */
function onTraceClock(cell: CellConfig): boolean {
  return isTraceDataset(cell.dataset) && cell.load.type === "rate";
}

/**
 * A load as validate shows it; `unit` is what it counts (a session dataset's load counts sessions). A trace
 * replayed open loop is timed by its timestamps, whatever the rate says: "trace timestamps, N requests
 * over S s" (sessions and requests when its sessions have several turns), or the time scale alone when
 * the file was not read.
 */
function describeLoad(
  load: LoadConfig,
  unit: "req" | "sessions" = "req",
  trace: { timeScale: number; replay: TraceReplay | null } | null = null,
): string {
  if (trace !== null && load.type === "rate") {
    const replay = trace.replay;
    const inFlight = load.max_concurrency ? `, max ${load.max_concurrency} in flight` : "";
    if (replay === null) return `trace timestamps (time x${trace.timeScale})${inFlight}`;
    const count =
      replay.requests === replay.sessions
        ? `${replay.requests} requests`
        : `${replay.sessions} sessions (${replay.requests} requests)`;
    return `trace timestamps, ${count} over ${formatSeconds(replay.spanS)} s${inFlight}`;
  }
  switch (load.type) {
    case "concurrency":
      return `concurrency ${load.concurrency}${unit === "sessions" ? " sessions" : ""}`;
    case "rate":
      return `${load.rate} ${unit}/s${load.burstiness === 1 ? " Poisson" : ` burstiness ${load.burstiness}`}${load.max_concurrency ? `, max ${load.max_concurrency} in flight` : ""}`;
    case "stages":
      return `stages ${load.stages.map((stage) => (stage.rate !== undefined ? `${stage.rate}/s` : `c${stage.concurrency}`) + ` ${stage.duration_s}s`).join(" -> ")}`;
  }
}

function formatSeconds(seconds: number): string {
  return seconds >= 100 ? String(Math.round(seconds)) : String(Number(seconds.toFixed(1)));
}
/** Tool rounds per turn assumed when a session declares tools (the server decides whether it calls one). */
const assumedToolRoundsPerTurn = 1;

/** What one session of a session dataset is expected to spend, from the declared distributions' means. */
export interface SessionEstimate {
  /** Mean turns per session. */
  turns: number;
  /** Fan-out turns per session: the listed turns the mean turns reach, or `share` x turns. */
  fanOuts: number;
  /** Requests per session, tool rounds aside: one per turn, a fan-out turn's branches instead of one. */
  requests: number;
  /** Seconds of one answer (a turn's, and a tool round's) at the assumed per-stream speed. */
  answerSeconds: number;
  /** Think seconds of a session: (turns − 1) x the think time's mean (the first turn does not wait). */
  thinkSeconds: number;
  /**
   * Tool seconds of a session: turns x the assumed tool rounds x (the tool latency's mean + one answer); a
   * fan-out turn's only where its branches have tools (their rounds run at once, so one branch's count).
   */
  toolSeconds: number;
  /**
   * Seconds of a session's fan-out turns: each one branch's answer (the branches run at once), in place of
   * the turn's answer.
   */
  fanOutSeconds: number;
  /**
   * A session's expected duration: answers of its turns without fan-out + fan-out + think + tool seconds
   * (its turns are closed loop).
   */
  seconds: number;
}

/**
 * A session's expected duration (null for a dataset of single requests). Its turns are closed loop:
 * each answer, then the think time, then the next turn, so a session takes turns x (answer) + (turns − 1) x
 * (think mean), plus each tool round's latency and its answer (answers at `secondsPerOutputToken`). A file's turns are assumed
 * (`assumedFileSessionTurns`, at most `max_turns`); a trace's gaps between turns are its own (not counted).
 * A fan-out turn takes one branch's answer (and its tool round, where the branches have tools): the
 * branches run at once, each at the assumed per-stream speed.
 */
export function sessionEstimate(
  cell: CellConfig,
  secondsPerOutputToken = assumedSecondsPerOutputToken,
  replay: TraceReplay | null = null,
): SessionEstimate | null {
  const dataset = cell.dataset;
  if (!isSessionDataset(dataset)) return null;
  const answerSeconds = cellOutputTokensMean(cell, replay) * secondsPerOutputToken;
  const shape = sessionShape(dataset, replay);
  const turns = Math.max(1, shape.turns);
  const think = shape.thinkSeconds;
  const toolLatency = shape.toolLatencySeconds;
  const tool = toolLatency === null ? 0 : assumedToolRoundsPerTurn * (toolLatency + answerSeconds);
  const fanOut = shape.fanOut;
  const fanOuts =
    fanOut === undefined
      ? 0
      : fanOut.turns !== undefined
        ? fanOut.turns.filter((turn) => turn <= turns).length
        : fanOut.share! * turns;
  const branchAnswer = fanOut === undefined ? 0 : lengthMean(fanOut.output_tokens) * secondsPerOutputToken;
  const branchTool =
    fanOut?.tools === true && toolLatency !== null
      ? assumedToolRoundsPerTurn * (toolLatency + branchAnswer)
      : 0;
  const thinkSeconds = (turns - 1) * think;
  const toolSeconds = (turns - fanOuts) * tool + fanOuts * branchTool;
  const fanOutSeconds = fanOuts * branchAnswer;
  return {
    turns,
    fanOuts,
    requests: turns - fanOuts + (fanOut === undefined ? 0 : fanOuts * meanBranches(fanOut)),
    answerSeconds,
    thinkSeconds,
    toolSeconds,
    fanOutSeconds,
    seconds: (turns - fanOuts) * answerSeconds + fanOutSeconds + thinkSeconds + toolSeconds,
  };
}

function estimateSeconds(cell: CellConfig, replay: TraceReplay | null): number {
  if ("duration_s" in cell.size) return cell.size.duration_s;
  const requests = cell.size.requests;
  // A session dataset's unit is a session: its schedule counts sessions, each as long as its turns.
  const requestSeconds =
    sessionEstimate(cell, assumedSecondsPerOutputToken, replay)?.seconds ??
    cellOutputTokensMean(cell) * assumedSecondsPerOutputToken;
  // A trace on its own clock: up to its last request's timestamp (a session's later turns wait for theirs),
  // then that request's answer, or its last session when the answers are what takes longer.
  if (replay !== null && onTraceClock(cell)) {
    const answer = cellOutputTokensMean(cell, replay) * assumedSecondsPerOutputToken;
    return Math.max(replay.lastRequestS + answer, replay.spanS + requestSeconds);
  }
  switch (cell.load.type) {
    case "rate":
      return requests / cell.load.rate + requestSeconds;
    case "concurrency":
      return (requests / cell.load.concurrency) * requestSeconds;
    case "stages":
      return cell.load.stages.reduce((total, stage) => total + stage.duration_s, 0);
  }
}

/**
 * Idle seconds per run the idle-elided schedule is expected to cut from an open-loop rate cell at low
 * load. With Poisson-like arrivals at rate λ and requests of S seconds that do not queue, the requests
 * in flight are Poisson with mean λS, so an arrival finds nothing in flight with probability e^(−λS)
 * (PASTA), and the idle gap before it, exponential with mean 1/λ, is cut but for the settle time: per
 * run N·e^(−λS)·e^(−λ·settle)/λ. S is a lone request's time at the assumed speeds above.
 */
function estimateElidedSeconds(cell: CellConfig, schedule: CellSchedule, replay: TraceReplay | null): number {
  if (schedule.kind !== "idle-elided" || cell.load.type !== "rate" || !("requests" in cell.size)) return 0;
  // A trace on its own clock arrives at its own mean rate (unknown when its file was not read).
  const rate = onTraceClock(cell)
    ? replay !== null && replay.spanS > 0
      ? replay.sessions / replay.spanS
      : null
    : cell.load.rate;
  if (rate === null) return 0;
  // A session is in flight from its first turn to its last answer, its think times included.
  const serviceS =
    promptTokensMean(cell.dataset) * assumedLoneSecondsPerPromptToken +
    (sessionEstimate(cell, assumedLoneSecondsPerOutputToken, replay)?.seconds ??
      cellOutputTokensMean(cell) * assumedLoneSecondsPerOutputToken);
  return (
    (cell.size.requests * Math.exp(-rate * serviceS) * Math.exp((-rate * schedule.settleMs) / 1000)) / rate
  );
}

function describeWarmup(cell: CellConfig): string {
  const unit = isSessionDataset(cell.dataset) ? "sessions" : "req";
  return "requests" in cell.warmup ? `${cell.warmup.requests} ${unit}` : `${cell.warmup.duration_s} s`;
}

/**
 * `looks`: the run counts per side at which compare decides (stats/sequential lookSchedule; passed in, as
 * config comes first in the pipeline); each look after the first is another measuring step.
 */
export function summarizeConfig(
  config: Config,
  templates: readonly TemplateAt[] = [],
  looks?: readonly number[],
  traces: TraceReplays = noTraceReplays,
): ConfigSummary {
  // Text is built from the view that holds templates where values came from `${VAR}` (they may be
  // secrets); estimates and checks use the values.
  const shown = templateView(config, templates);
  const warnings: string[] = [];
  const server = config.server;
  const serverText = describeServer(shown.server);
  warnings.push(...serverWarnings(server, shown.server));
  if (!config.model.revision)
    warnings.push("model.revision is not set: the model can change under the same name; pin a commit");
  if (config.repeats.min < 3)
    warnings.push(
      `repeats.min is ${config.repeats.min}: fewer than 3 runs per side can rarely support a verdict`,
    );

  const cells = config.cells.map((cell, index): CellSummary => {
    const replay = traces(cell);
    const warning = minRequestsWarning(config, cell, shown.cells[index]!, replay);
    if (warning !== null) warnings.push(warning);
    return summarizeCell(config, cell, shown.cells[index]!, replay);
  });

  return {
    server: serverText,
    model: `${shown.model.name}${shown.model.revision ? ` @ ${shown.model.revision}` : ""}`,
    cells,
    runs: { min: config.repeats.min, max: config.repeats.max },
    starts: startsOf(config),
    gate: `${shown.gate.metrics.join(", ")}; tolerance ${typeof shown.gate.tolerance === "number" ? `${(shown.gate.tolerance * 100).toFixed(1)}%` : shown.gate.tolerance}, confidence ${shown.gate.confidence}, fail on ${shown.gate.fail_on}`,
    warnings,
    // Capacity and sweep cells spend their own runs (validate costs them apart: capacity-summary.ts).
    gpuMinutes: estimateGpuMinutes(
      config,
      cells
        .filter((_, index) => !isSearchedCell(config.cells[index]!))
        .map((cell) => cell.estimatedSecondsPerRun),
      looks ?? [config.repeats.min, config.repeats.max],
    ),
    searchedCells: config.cells.filter(isSearchedCell).map((cell) => cell.name),
  };
}

/**
 * A fixed-size cell whose requests per run fall below gate.min_requests.p95: its gated percentiles will
 * be advisory only. A session dataset's size counts sessions: its requests per run are about sessions x
 * mean turns (tool rounds come on top). Its depth buckets' requests depend on the turns' distribution, not
 * only their mean, so the depth metrics' floor is compare's to apply, not estimated here.
 */
function minRequestsWarning(
  config: Config,
  cell: CellConfig,
  text: CellConfig,
  replay: TraceReplay | null,
): string | null {
  if (!("requests" in cell.size)) return null;
  const session = sessionEstimate(cell, assumedSecondsPerOutputToken, replay);
  const requestsPerRun =
    session === null ? cell.size.requests : Math.round(cell.size.requests * session.requests);
  if (requestsPerRun >= config.gate.min_requests.p95) return null;
  const gatedPercentiles = config.gate.metrics.filter(
    (metric) =>
      metricSpecs[metric].minRequests === "p95" &&
      (session === null || metricSpecs[metric].source.kind !== "session"),
  );
  if (gatedPercentiles.length === 0) return null;
  const requests = (text.size as { requests: number }).requests;
  const counted =
    session === null
      ? `${requests} requests per run`
      : `about ${requestsPerRun} requests per run (${requests} sessions of ${Number(session.turns.toFixed(1))} turns${session.fanOuts > 0 ? `, ${Number(session.requests.toFixed(1))} requests each with the fan-outs' branches` : ""})`;
  return `cells "${text.name}": ${counted} is below gate.min_requests.p95 (${config.gate.min_requests.p95}); ${gatedPercentiles.join(", ")} will be advisory only`;
}

/** One cell's row of the summary: described from its shown view (`text`), estimated from its values. */
function summarizeCell(
  config: Config,
  cell: CellConfig,
  text: CellConfig,
  replay: TraceReplay | null,
): CellSummary {
  const unit = isSessionDataset(cell.dataset) ? "sessions" : "req";
  const schedule = cellSchedule(config, cell);
  const elided = estimateElidedSeconds(cell, schedule, replay);
  const trace = isTraceDataset(cell.dataset) ? { timeScale: cell.dataset.time_scale, replay } : null;
  return {
    name: text.name,
    endpoint: text.endpoint,
    dataset: describeDataset(text.dataset),
    load: describeLoad(text.load, unit, trace),
    size: "requests" in text.size ? `${text.size.requests} ${unit}` : `${text.size.duration_s} s`,
    prefix: text.prefix,
    warmup: describeWarmup(text),
    schedule: describeSchedule(schedule),
    estimatedSecondsPerRun: Math.max(0, estimateSeconds(cell, replay) - elided),
    estimatedElidedSecondsPerRun: elided,
  };
}

export function renderSummary(file: string, summary: ConfigSummary): string {
  const header = ["cell", "endpoint", "dataset", "load", "per run", "warm-up", "prefix"];
  const rows = summary.cells.map((cell) => [
    cell.name,
    cell.endpoint,
    cell.dataset,
    cell.load,
    cell.size,
    cell.warmup,
    cell.prefix,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (row: string[]) =>
    row
      .map((value, column) => value.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  const out = [
    `${file}: valid`,
    `server: ${summary.server}`,
    `model:  ${summary.model}`,
    `${summary.cells.length} cell${summary.cells.length === 1 ? "" : "s"}:`,
    `  ${line(header)}`,
    ...rows.map((row) => `  ${line(row)}`),
    ...renderSchedules(summary.cells),
    `runs per side: ${summary.runs.min} to ${summary.runs.max} (more only while the verdict is inconclusive)`,
    startsLine(summary),
    `gated: ${summary.gate}`,
    ...renderGpuMinutes(summary.gpuMinutes, summary.searchedCells, summary.cells.length),
  ];
  for (const warning of summary.warnings) out.push(`warning: ${warning}`);
  return `${out.join("\n")}\n`;
}

/** validate's line on how a side's runs fall into server starts, and what the intervals count for it. */
function startsLine(summary: ConfigSummary): string {
  const { starts, runs } = summary;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const auto = starts.auto ? " (repeats.block auto)" : "";
  const counts = `${plural(starts.firstLookPerSide, "start")} a side at the first look, ${starts.maxPerSide} at ${runs.max} runs`;
  if (starts.startEachGroup && starts.group === 1)
    return `server starts: every run of a side on a start of its own${auto}, alternating A B, B A: ${counts}; the start-to-start noise is inside the runs' own spread (no prior needed)`;
  const each = starts.startEachGroup ? ", each group on a start of its own" : "";
  return `server starts: groups of ${plural(starts.group, "run")} a side${each}${auto}, alternating A B, B A: ${counts}; the intervals count the start-to-start noise beside the run-to-run (gate.noise_prior)`;
}

/** One line per schedule: which cells run on it, and the idle time it is expected to cut. */
function renderSchedules(cells: readonly CellSummary[]): string[] {
  const bySchedule = new Map<string, CellSummary[]>();
  for (const cell of cells) bySchedule.set(cell.schedule, [...(bySchedule.get(cell.schedule) ?? []), cell]);
  return [...bySchedule].map(([schedule, members]) => {
    const elided = members.reduce((sum, cell) => sum + cell.estimatedElidedSecondsPerRun, 0);
    const total = members.reduce((sum, cell) => sum + cell.estimatedSecondsPerRun, 0) + elided;
    const names =
      members.length === cells.length ? "every cell" : members.map((cell) => cell.name).join(", ");
    return `schedule: ${schedule}: ${names}${
      elided >= 1
        ? `; about ${Math.round(elided)} of ${Math.round(total)} s of schedule per run cut (${Math.round((100 * elided) / total)}%)`
        : ""
    }`;
  });
}

// GPU-minutes per pull request and per mode. Every server start is counted: a start loads weights and
// compiles kernels on the GPU before the first request (cost.server_start_s, default 3 minutes for vLLM).

export type CostMode = "stored" | "interleaved" | "baseline";

/** GPU seconds of one server start: cost.server_start_s, else the default of the server kind (server-kinds.ts). */
export const defaultServerStartSeconds: Readonly<Record<ServerKind, number>> = Object.fromEntries(
  serverKinds.map((kind) => [kind, serverKindFacts[kind].defaultStartSeconds]),
) as Record<ServerKind, number>;

export function serverStartSeconds(config: Pick<Config, "server" | "cost">): number {
  return config.cost.server_start_s ?? defaultServerStartSeconds[config.server.kind];
}

export { serverLifecycle };

/**
 * Server starts per cell to reach `runs` runs per side (under `per-side`, per side's server: every cell
 * of the side shares its starts, see `startedServers`). stored (the PR's side only): one start per
 * measuring step, i.e. per look reached; interleaved (both sides, alternating in groups of
 * `runsPerBlock` runs per side, A B | B A ...): each look's step from a to b runs touches g groups and is
 * g + 1 blocks of consecutive same-side runs, one start each (k = 1: b − a + 1); baseline (the push job):
 * its runs in starts of at most `runsPerBlock` runs (here: `baselineRunsPerStart`), as
 * `baselineStartGroups` splits them. Under `lifecycle: per-run` every run is a start. An alternation
 * whose groups each have a start of their own (`startEachGroup`) costs 2 starts per group touched.
 */
export function serverStartsPerCell(
  mode: CostMode,
  runs: number,
  looks: readonly number[],
  lifecycle: ServerLifecycle,
  runsPerBlock: number | Alternation = 1,
): number {
  if (runs <= 0) return 0;
  if (lifecycle === "per-run") return mode === "interleaved" ? 2 * runs : runs;
  if (mode === "baseline") return baselineStartGroups(runs, alternationOf(runsPerBlock).runsPerGroup).length;
  const bounds = [...new Set([0, ...looks.filter((look) => look > 0 && look < runs), runs])].sort(
    (a, b) => a - b,
  );
  if (mode === "stored") return bounds.length - 1;
  let starts = 0;
  for (let i = 1; i < bounds.length; i++)
    starts += interleavedStepStarts(bounds[i - 1]!, bounds[i]!, runsPerBlock);
  return starts;
}

/**
 * How many servers of one side the starts of `serverStartsPerCell` are counted for: one under `per-side`
 * (every cell of a config shares its engine flags, so one server serves them all, its prefix cache reset
 * between cells), one per cell otherwise.
 */
export function startedServers(lifecycle: ServerLifecycle, cells: number): number {
  return lifecycle === "per-side" ? Math.min(1, cells) : cells;
}

/**
 * The gated metrics' noise family (gate.noise_prior) with the largest `noise` (per-run judged metrics
 * only: a pooled count has no run-to-run spread), or null when none is gated.
 */
export function noisiestGatedFamily(
  config: Pick<Config, "gate">,
  noise: (family: NoiseFamily) => number,
): NoiseFamily | null {
  const families = new Set(
    config.gate.metrics
      .filter((metric) => metricSpecs[metric].judged === "per-run")
      .map((metric) => metricSpecs[metric].noise),
  );
  return [...families].reduce<NoiseFamily | null>(
    (best, family) => (best === null || noise(family) > noise(best) ? family : best),
    null,
  );
}

/**
 * How a side's runs alternate and fall into server starts (repeats.block; docs/compare.md, "Server
 * starts"): a number is the runs per side per group, consecutive groups of a side sharing one start;
 * "fresh" is every run of a side on a start of its own; "auto" is chosen by cost (Kalibera and Jones:
 * repetitions at a level ∝ √(its variance / its cost), `autoAlternation`), from gate.noise_prior's start
 * and run variances of the gated family with the largest start sd, a start's cost.server_start_s and the
 * estimated seconds of one run of every cell one server serves.
 */
export function alternation(config: Config): Alternation {
  const block = config.repeats.block;
  if (block === "fresh") return { runsPerGroup: 1, startEachGroup: true };
  if (block !== "auto") return { runsPerGroup: block, startEachGroup: false };
  const costs = startCosts(config);
  if (costs === null) return { runsPerGroup: config.repeats.min, startEachGroup: false };
  return autoAlternation({
    minRuns: config.repeats.min,
    tolerance: config.gate.tolerance,
    startsItsServer: serverKindFacts[config.server.kind].launchesProcess,
    ...costs,
  });
}

/** The runs per side per group of the A/B alternation (`alternation`'s group). */
export function runsPerBlock(config: Config): number {
  return alternation(config).runsPerGroup;
}

/**
 * What the split of runs into server starts is chosen from: gate.noise_prior's start and run sd of the
 * gated per-run family with the largest start sd, a start's seconds and the seconds of one run of every
 * cell a start serves. Null when no per-run metric is gated.
 */
interface StartCosts {
  startSd: number;
  runSd: number;
  startSeconds: number;
  /** Seconds of one run of every cell a server start serves. */
  runSeconds: number;
}

function startCosts(config: Config): StartCosts | null {
  const prior = config.gate.noise_prior;
  const widest = noisiestGatedFamily(config, (family) => prior[family].start_sd);
  if (widest === null) return null;
  const lifecycle = serverLifecycle(config);
  const fixedLoad = config.cells.filter((cell) => !isSearchedCell(cell));
  // A trace cell's file is not read here: its run is estimated from its rate.
  const seconds = fixedLoad.map((cell) => estimateSeconds(cell, null));
  const total = seconds.reduce((sum, s) => sum + s, 0);
  return {
    startSd: prior[widest].start_sd,
    runSd: prior[widest].run_sd,
    startSeconds: serverStartSeconds(config),
    runSeconds: lifecycle === "per-side" ? total : total / Math.max(1, seconds.length),
  };
}

/**
 * Runs per server start of a baseline job (the push job's repeats.baseline runs; docs/compare.md, "Server
 * starts"): at most half its runs and at least two, so that it has two starts or more and a start with
 * two runs, which main's history needs to tell the start level from the run level; within those bounds
 * what a start of the interleaved schedule holds: two groups of repeats.block, or with `auto` the runs
 * per start that cost least for the variance of the mean (Kalibera and Jones, from gate.noise_prior and
 * the costs as `runsPerBlock`). Under `per-run` every run is a start.
 */
export function baselineRunsPerStart(config: Config, runs = config.repeats.baseline): number {
  if (serverLifecycle(config) === "per-run") return 1;
  const block = config.repeats.block;
  if (block === "auto") return baselineRunsPerStartOf(runs, { costs: startCosts(config) });
  // A fresh start per run in the PR's job: the baseline job still needs starts of two runs (the history).
  return baselineRunsPerStartOf(runs, { block: block === "fresh" ? 1 : block });
}

/**
 * `baselineRunsPerStart` from its inputs (also bench:gate's, which has no config): at most half the
 * runs; two groups of `block`, or with `costs` (repeats.block auto) Kalibera and Jones' runs per start.
 */
export function baselineRunsPerStartOf(
  runs: number,
  how: { block: number } | { costs: StartCosts | null },
): number {
  const half = Math.max(1, Math.ceil(runs / 2));
  const best =
    "block" in how
      ? 2 * how.block
      : how.costs === null
        ? half
        : optimalRunsPerStart({
            startVariance: how.costs.startSd ** 2,
            runVariance: how.costs.runSd ** 2,
            startCost: how.costs.startSeconds,
            runCost: how.costs.runSeconds,
          });
  // Two runs a start at least (where the runs allow it): the history separates the levels only within a start.
  return Math.max(Math.min(2, half), Math.min(half, Math.round(best)));
}

/**
 * A baseline job's runs in server starts of at most `runsPerStart` runs, as even as possible (the
 * earlier starts one run longer): the run count of each start, in order. One run: one start.
 */
export function baselineStartGroups(runs: number, runsPerStart: number): number[] {
  if (runs <= 0) return [];
  const starts = Math.ceil(runs / Math.max(1, Math.floor(runsPerStart)));
  const base = Math.floor(runs / starts);
  const longer = runs - base * starts;
  return Array.from({ length: starts }, (_, i) => base + (i < longer ? 1 : 0));
}

/** What "auto" chooses the alternation from (also bench:gate's, which has no cells to estimate). */
interface AutoAlternationInput {
  minRuns: number;
  startSd: number;
  runSd: number;
  tolerance: number;
  startSeconds: number;
  /** Seconds of one run of every cell a server start serves. */
  runSeconds: number;
  /** The runner starts the server (a server started by someone else cannot be restarted per run). */
  startsItsServer?: boolean;
}

/**
 * repeats.block "auto" from its inputs. When the start level does not matter for the tolerance (√2·start
 * sd below a fifth of ln(1 + tolerance)), one start a side serves the first look (groups of
 * repeats.min). Otherwise Kalibera and Jones' runs per start, √(start cost·σ_r² / (run cost·σ_s²)),
 * decides: below two, every run of a side gets a start of its own (groups of one run, A B B A kept),
 * because consecutive groups of a side that share a start hold two runs at the least, and a start per
 * run puts the start level inside the runs' own spread, so the test needs no start prior and keeps all
 * its degrees of freedom (Welch's on independent runs; bench:gate measures both schedules,
 * docs/compare.md "The server start as a level of the noise"); at two or more, groups of half the
 * runs per start share starts (A B | B A merges a side's consecutive groups), small enough that the first
 * look has two starts a side.
 */
export function autoAlternation(input: AutoAlternationInput): Alternation {
  const { minRuns: min, startSd } = input;
  const shared = (runsPerGroup: number) => ({ runsPerGroup, startEachGroup: false });
  if (Math.SQRT2 * startSd < toleranceMargin(input.tolerance) / 5) return shared(min);
  const perStart =
    input.runSeconds > 0 && startSd > 0
      ? optimalRunsPerStart({
          startVariance: startSd ** 2,
          runVariance: input.runSd ** 2,
          startCost: input.startSeconds,
          runCost: input.runSeconds,
        })
      : min;
  if (perStart < 2 && input.startsItsServer !== false) return { runsPerGroup: 1, startEachGroup: true };
  // Two starts a side at the first look need at least 3 groups in it: ⌈min / k⌉ ≥ 3.
  let largest = 1;
  while (largest < min && Math.ceil(min / (largest + 1)) >= 3) largest++;
  return shared(Math.max(1, Math.min(largest, Math.round(perStart / 2))));
}

/** A side's server starts at the first look and at repeats.max, in groups of runsPerBlock (interleaved). */
function startsOf(config: Config): ConfigSummary["starts"] {
  const chosen = alternation(config);
  const group = chosen.runsPerGroup;
  // Groups of k alternate A B | B A, a side's consecutive groups merging: g groups give g + 1 blocks,
  // ⌊(g + 1) / 2⌋ or ⌈(g + 1) / 2⌉ a side; the fewer is what a side is sure to have. A start per group:
  // every group of a side is a start.
  const perSide = (runs: number) =>
    chosen.startEachGroup
      ? Math.ceil(runs / group)
      : Math.max(1, Math.floor((Math.ceil(runs / group) + 1) / 2));
  return {
    group,
    startEachGroup: chosen.startEachGroup,
    auto: config.repeats.block === "auto",
    firstLookPerSide: perSide(config.repeats.min),
    maxPerSide: perSide(config.repeats.max),
  };
}

/**
 * Server starts per cell of one interleaved measuring step from `from` to `to` runs per side: the g
 * groups it touches give g + 1 blocks of consecutive same-side runs, or 2g with a start per group.
 */
export function interleavedStepStarts(
  from: number,
  to: number,
  runsPerBlock: number | Alternation = 1,
): number {
  if (to <= from) return 0;
  const chosen = alternationOf(runsPerBlock);
  const k = Math.max(1, Math.floor(chosen.runsPerGroup));
  const groups = Math.floor((to - 1) / k) - Math.floor(from / k) + 1;
  return chosen.startEachGroup ? 2 * groups : groups + 1;
}

interface GpuMinutesEstimate {
  mode: CostMode;
  /** Runs per side (the baseline job: runs recorded) at the first look and when every look is used. */
  runs: { first: number; max: number };
  serverStarts: { first: number; max: number };
  minutes: { first: number; max: number };
  usd?: { first: number; max: number };
}

function estimateGpuMinutes(
  config: Config,
  secondsPerRunByCell: readonly number[],
  looks: readonly number[],
): GpuMinutesEstimate[] {
  const startSeconds = serverStartSeconds(config);
  const lifecycle = serverLifecycle(config);
  const runSeconds = secondsPerRunByCell.reduce((sum, seconds) => sum + seconds, 0);
  const cells = secondsPerRunByCell.length;
  const price = config.cost.gpu_hourly_usd;
  const at = (mode: CostMode, runs: number) => {
    const perGroup = mode === "baseline" ? baselineRunsPerStart(config, runs) : alternation(config);
    const starts =
      startedServers(lifecycle, cells) * serverStartsPerCell(mode, runs, looks, lifecycle, perGroup);
    const sides = mode === "interleaved" ? 2 : 1;
    return { starts, minutes: (sides * runs * runSeconds + starts * startSeconds) / 60 };
  };
  const entry = (mode: CostMode, first: number, max: number): GpuMinutesEstimate => {
    const a = at(mode, first);
    const b = at(mode, max);
    return {
      mode,
      runs: { first, max },
      serverStarts: { first: a.starts, max: b.starts },
      minutes: { first: a.minutes, max: b.minutes },
      ...(price !== undefined
        ? { usd: { first: (a.minutes / 60) * price, max: (b.minutes / 60) * price } }
        : {}),
    };
  };
  const { min, max, baseline } = config.repeats;
  return [entry("stored", min, max), entry("interleaved", min, max), entry("baseline", baseline, baseline)];
}

function renderGpuMinutes(
  estimates: readonly GpuMinutesEstimate[],
  searchedCells: readonly string[],
  cellCount: number,
): string[] {
  if (searchedCells.length > 0 && searchedCells.length === cellCount)
    return ["estimated GPU-minutes: every cell is a capacity or sweep cell, costed below"];
  const minutes = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
  const usd = (e: GpuMinutesEstimate) =>
    e.usd
      ? ` (~$${e.usd.first.toFixed(2)}${e.usd.max !== e.usd.first ? ` to $${e.usd.max.toFixed(2)}` : ""})`
      : "";
  const lines = [
    searchedCells.length === 0
      ? "estimated GPU-minutes (measured runs plus every server start):"
      : `estimated GPU-minutes of the fixed-load cells (measured runs plus every server start; ${searchedCells.join(", ")} costed below):`,
  ];
  for (const e of estimates) {
    const label =
      e.mode === "stored"
        ? "per PR, stored baseline (PR side only)"
        : e.mode === "interleaved"
          ? "per PR, interleaved (both sides)"
          : "per baseline job (push/schedule)";
    lines.push(
      e.mode === "baseline"
        ? `  ${label}: ${minutes(e.minutes.first)} at ${e.runs.first} runs, ${e.serverStarts.first} server starts${usd(e)}`
        : `  ${label}: ${minutes(e.minutes.first)} at ${e.runs.first} runs (${e.serverStarts.first} starts), ${minutes(e.minutes.max)} at ${e.runs.max} runs (${e.serverStarts.max} starts)${usd(e)}`,
    );
  }
  lines.push(
    `  (rough: schedules as declared, closed-loop cells at ${assumedSecondsPerOutputToken * 1000} ms per output token, a session as its turns' answers plus its think and tool times' means (${assumedFileSessionTurns} turns for a file's sessions, ${assumedToolRoundsPerTurn} tool round per turn where tools are declared, a fan-out turn as one branch's answer), idle time cut for a lone request at ${assumedLoneSecondsPerOutputToken * 1000} ms per output token and ${assumedLoneSecondsPerPromptToken * 1000} ms per prompt token; a server start counted as cost.server_start_s)`,
  );
  return lines;
}
