import { dirname, resolve } from "node:path";
import type { LoadedConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { selectCells } from "../config/select-cells.js";
import { serverKindFacts } from "../config/server-kinds.js";
import { budgetPlanLines } from "../report/budget.js";
import type { ProgressSink } from "../runner/progress.js";
import { baseUrlApiKey, baseUrlProvider } from "../server/base-url.js";
import type { Outbound } from "../server/outbound.js";
import { type ManagedServerProvider, providerForConfig } from "../server/provider.js";
import { serverStartIdProblem } from "../server/server-start.js";
import { defaultServerStateFile } from "../server/state.js";
import type { ServerDevice, ServerProvider } from "../server/types.js";
import { FailureError, UsageError } from "../util/errors.js";
import { type BudgetDecision, calibratedCheckNoise, configWithinBudget } from "./budget-plan.js";
import { readCalibration } from "./compare.js";
import { firstRunsIn, type RunOutput } from "./run-cells.js";
import { type RunFormats, writeRunExports } from "./run-exports.js";
import { type BlockProvider, runCellsOnDevices } from "./run-on-devices.js";
import { runSweepCells } from "./run-sweep.js";

/**
 * The `run` command's job (docs/run.md): a config's cells measured on the servers it starts (on the
 * runner's devices) or on `--base-url`'s server, each run written under the output directory, under
 * gate.budget_gpu_minutes by the budget's plan. The command parses its flags and prints; this is the
 * rest, in two steps: `planRunJob` (before the job's output seam exists, so it knows the key variable
 * the seam must hold) and `runJob`.
 */
export interface RunJobRequest {
  readonly loaded: LoadedConfig;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolved against `cwd`. */
  readonly out: string;
  readonly cells?: readonly string[] | undefined;
  readonly runs?: number | undefined;
  readonly formats: RunFormats;
  readonly side?: string | undefined;
  /** `--base-url`, and the variable `--api-key-env` names. */
  readonly baseUrl?: string | undefined;
  readonly apiKeyEnv?: string | undefined;
  readonly serverStartId?: string | undefined;
  readonly append: boolean;
  readonly sweep: boolean;
  readonly stallReportMs?: number | undefined;
  /** This runner's calibration.json, as given: under a budget its noise plans the runs. */
  readonly calibrationPath?: string | undefined;
}

/** A run job checked and planned: the config it measures (the budget's plan applied) and `--base-url`'s key. */
export interface RunJobPlan {
  readonly request: RunJobRequest;
  readonly config: Config;
  readonly budget: BudgetDecision | null;
  /** `--base-url`'s API key and the variable it came from (a secret of the job); null without one. */
  readonly key: { apiKey: string; variable: string } | null;
  readonly outDir: string;
}

/** Checks the flags against the config and applies its budget; a UsageError or InputError names a problem. */
export async function planRunJob(request: RunJobRequest): Promise<RunJobPlan> {
  const { loaded, baseUrl } = request;
  // Under gate.budget_gpu_minutes the config measures its budget's plan (app/budget-plan.ts), as the
  // action and compare read it: the runs per side, runs per start and requests per run it chose.
  const calibration =
    request.calibrationPath === undefined
      ? null
      : await readCalibration(resolve(request.cwd, request.calibrationPath), request.calibrationPath);
  const { config, budget } = configWithinBudget(loaded.config, {
    ...(request.cells ? { cells: request.cells } : {}),
    ...(calibration ? { noiseOf: calibratedCheckNoise(loaded.config, calibration.file, new Date()) } : {}),
    file: loaded.path,
  });
  checkServerStartId(request, config);
  // --base-url's key: --api-key-env NAME, else server.api_key_env, else VLLM_API_KEY, else OPENAI_API_KEY.
  const key =
    baseUrl === undefined
      ? null
      : baseUrlApiKey(request.env, {
          flag: request.apiKeyEnv,
          config: "api_key_env" in config.server ? config.server.api_key_env : undefined,
        });
  return { request, config, budget, key, outDir: resolve(request.cwd, request.out) };
}

/** `--server-start` names the start of a server run does not start itself. */
function checkServerStartId(request: RunJobRequest, config: Config): void {
  const id = request.serverStartId;
  if (id === undefined) return;
  const problem = serverStartIdProblem(id, "--server-start");
  if (problem !== null) throw new UsageError(problem);
  if (request.baseUrl === undefined && serverKindFacts[config.server.kind].launchesProcess)
    throw new UsageError(
      `--server-start names the start of a server run does not start (--base-url, or server.kind external); this config's server (kind ${config.server.kind}) is started by run, which records each of its starts`,
    );
}

/** What a run job writes through and reports to, built by its root. */
export interface RunJobServices {
  /** The job's output seam, built from its one secret set (with `plan.key`'s variable). */
  readonly outbound: Outbound;
  readonly progress: ProgressSink;
  /** An interrupt: the run in progress stops sending and writes its files; no further run starts. */
  readonly signal: AbortSignal;
}

export interface RunJobResult {
  readonly runs: readonly RunOutput[];
  readonly outDir: string;
}

/**
 * Measures the plan: the servers it starts, one per block of the device plan (or `--base-url`'s for
 * every cell), stopped when it returns or throws; then the warnings on the runs and their exports.
 */
export async function runJob(plan: RunJobPlan, services: RunJobServices): Promise<RunJobResult> {
  const { request, config, outDir } = plan;
  const { outbound, progress } = services;
  const servers = jobServers(plan, services);
  if (plan.budget !== null)
    for (const line of budgetPlanLines(
      plan.budget.plan,
      config.gate.detect_change,
      plan.budget.budgetToDecide,
    ))
      progress.message(line);
  const firstRunByCell = firstRunsAfterExisting(plan, progress);
  try {
    const common = {
      config: servers.measured,
      outDir,
      baseDir: dirname(request.loaded.path),
      // The command's environment, for the external task commands (quality.tasks.external).
      env: request.env,
      outbound,
      ...(request.cells ? { cells: request.cells } : {}),
      ...(request.runs !== undefined ? { runs: request.runs } : {}),
      formats: request.formats.runner,
      firstRunByCell,
      ...(request.side ? { side: request.side } : {}),
      progress,
      signal: services.signal,
      ...(request.stallReportMs !== undefined ? { stallReportMs: request.stallReportMs } : {}),
    };
    // A sweep's capacity and sweep cells are measured one server at a time (validate keeps them out
    // of a config with runner.devices); fixed-load cells go through the device plan.
    const result = request.sweep
      ? await runSweepCells({ ...common, provider: servers.providerFor(undefined) })
      : await runCellsOnDevices({ ...common, providerFor: servers.providerFor });
    warnAboutRuns(result.runs, progress);
    const exported = await writeRunExports(result.runs, request.formats.exports, request.side, outbound);
    for (const line of exported) progress.message(line);
    return { runs: result.runs, outDir };
  } finally {
    await servers.stopAll();
  }
}

/** The servers of a run job: the config's, one provider per block, or `--base-url`'s one server. */
interface JobServers {
  /** The config as measured: --base-url's one server measures every cell, so without runner.devices. */
  readonly measured: Config;
  providerFor(device: ServerDevice | undefined): BlockProvider;
  stopAll(): Promise<unknown>;
}

function jobServers(plan: RunJobPlan, { outbound, progress }: RunJobServices): JobServers {
  const { request, config, key } = plan;
  const { loaded, baseUrl, serverStartId } = request;
  if (baseUrl !== undefined) {
    if (config.runner.devices !== undefined)
      progress.message(
        `warning: runner.devices (${config.runner.devices.join(", ")}) is not used with --base-url: the cells run one after the other on the server given`,
      );
    // Someone else's server: nothing of ours to stop after a block.
    const external = withoutStop(
      baseUrlProvider({
        baseUrl,
        ...(key ? { apiKey: key.apiKey, apiKeyVariable: key.variable } : {}),
        model: config.model,
        sampling: config.sampling,
        env: request.env,
        interpolation: loaded.interpolation,
        ...(serverStartId !== undefined ? { serverStartId } : {}),
      }),
    );
    return {
      measured: { ...config, runner: { ...config.runner, devices: undefined } },
      providerFor: () => external,
      stopAll: async () => {},
    };
  }
  const providerOptions = {
    env: { ...request.env },
    interpolation: loaded.interpolation,
    outbound,
    // As the action does: a killed run's servers are stopped by the next start (server/cleanup.ts).
    stateFile: defaultServerStateFile(request.env),
    warn: (message: string) => progress.message(`warning: ${message}`),
    progress: (line: string) => progress.message(line),
    // An external server's start as --server-start names it (server/server-start.ts).
    ...(serverStartId !== undefined ? { serverStartId } : {}),
  };
  // Each on its device when runner.devices names several (app/run-on-devices.ts).
  const managed = new Set<ManagedServerProvider>();
  return {
    measured: config,
    providerFor: (device) => {
      const provider = providerForConfig(config, { ...providerOptions, ...(device ? { device } : {}) });
      managed.add(provider);
      return provider;
    },
    stopAll: () => Promise.all([...managed].map((provider) => provider.stopAll())),
  };
}

/** A provider whose servers are not ours to stop (--base-url), as a block's provider. */
function withoutStop(provider: ServerProvider): BlockProvider {
  return { ...provider, stopAll: async () => {} };
}

/** Each selected cell's first run number: 0, or with `--append` after the runs already in the directory. */
function firstRunsAfterExisting(plan: RunJobPlan, progress: ProgressSink): Record<string, number> {
  const { request, config, outDir } = plan;
  const firstRunByCell = firstRunsIn(
    outDir,
    selectCells(config, request.cells).map((cell) => cell.name),
    request.append,
  );
  const appended = Object.entries(firstRunByCell).filter(([, first]) => first > 0);
  if (appended.length > 0)
    progress.message(
      `--append: adding runs after the existing ones in ${outDir}: ${appended.map(([cell, first]) => `${cell} from run-${first}`).join(", ")}`,
    );
  return firstRunByCell;
}

/** Warnings on runs that are data with a flag: client-bound runs and runs on a starved simulator host. */
function warnAboutRuns(runs: readonly RunOutput[], progress: ProgressSink): void {
  const named = (list: readonly RunOutput[]) => list.map((run) => `${run.cell}/run-${run.run}`).join(", ");
  const bound = runs.filter((run) => run.file.flags.clientBound);
  if (bound.length > 0)
    progress.message(
      `warning: ${bound.length} run(s) were client-bound (the client, not the server, limited them): ${named(bound)}`,
    );
  const starved = runs.filter((run) => run.file.flags.serverStarved);
  if (starved.length > 0)
    progress.message(
      `warning: ${starved.length} run(s) were server host starved (the simulator's own process ran late): ${named(starved)}`,
    );
}

/** The failure of a job some of whose runs a crashed server cut short (exit 1), or null. */
export function cutShortFailure(runs: readonly RunOutput[]): FailureError | null {
  const cut = runs.filter((run) => run.file.flags.cutShort);
  if (cut.length === 0) return null;
  return new FailureError(
    `${cut.length} run(s) were cut short: ${cut.map((run) => `${run.cell}/run-${run.run} (${run.file.flags.notes[0] ?? "cut short"})`).join(", ")}`,
  );
}

/** The one line an interrupted `run` ends with: what was kept, and where. */
export function interruptSummary(signal: NodeJS.Signals, runs: readonly RunOutput[], outDir: string): string {
  const whole = runs.filter((run) => !run.file.flags.interrupted);
  const cut = runs.filter((run) => run.file.flags.interrupted);
  const parts = [`${whole.length} complete run(s)`];
  for (const run of cut) {
    const cancelled = run.file.requests.errorsByKind.aborted ?? 0;
    parts.push(
      `${run.cell}/run-${run.run} interrupted (${run.file.requests.total} request(s) recorded, ${cancelled} cancelled; excluded from comparisons)`,
    );
  }
  return `interrupted by ${signal}: kept ${parts.join(" and ")} in ${outDir}; the servers it started are stopped`;
}
