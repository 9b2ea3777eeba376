import { cp, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { type LoadedConfig, loadConfig } from "../../config/load.js";
import { sidesShareOneServer } from "../../config/server-kinds.js";
import { failureText, httpStatusOf } from "../../github/api-failure.js";
import { readFileAtCommit } from "../../github/base-config.js";
import { validateBaselineDir } from "../../github/baseline-bundle.js";
import { aggregatedLine, baseSideLine, fallbackNotice, measuringLine } from "../../report/status.js";
import type { MeasureStep } from "../adaptive.js";
import { baselineSteps, type DeviceBlock, measureOnDevices } from "../measure-on-devices.js";
import type { MeasureRequest } from "./dependencies.js";
import { baseSideWithinBudget } from "./job-budget.js";
import { type BaseSide, exists, type JobScope, type Measured } from "./job-scope.js";

/**
 * Producing the candidate's results: measure this commit's config, alternate it with the base commit's
 * (interleaved), or gather the parts a matrix measured (aggregate).
 */

export function measureRuns(
  scope: JobScope,
  run: {
    configPath: string;
    config: LoadedConfig;
    resultsDir: string;
    firstRun: number;
    runs: number | null;
    cells: string[] | null;
    side: "baseline" | "candidate" | null;
    searchToMaxRuns?: boolean;
    firstRunByCell?: Record<string, number>;
    runsByCell?: Record<string, number>;
    device?: MeasureRequest["device"];
  },
): Promise<void> {
  return scope.deps.measure({
    ...run,
    serverStateFile: scope.layout.serverStateFile,
    workingDirectory: scope.workingDirectory,
    outbound: scope.outbound,
  });
}

/**
 * The base and head configs measured alternately from run `firstRun` on, `runs` more runs per side, in
 * groups of repeats.block runs per side in the order A B, B A, ... (see alternatingBlocks), on the
 * runner's devices (measure-on-devices.ts: each cell's two sides on one device, the devices at once).
 * Consecutive runs of one side on a device are one measure call: one server start per side under the
 * per-side lifecycle (⌈R / k⌉ + 1 per device), one per cell under per-cell.
 */
export async function alternate(
  scope: JobScope,
  baseSide: BaseSide,
  firstRun: number,
  runs: number,
  cells: string[] | null,
): Promise<void> {
  const sides = {
    baseline: {
      configPath: baseSide.path,
      config: baseSide.config,
      resultsDir: scope.layout.baselineSideDir,
      side: "baseline" as const,
    },
    candidate: {
      configPath: scope.configPath,
      config: scope.config,
      resultsDir: scope.layout.candidateDir,
      side: "candidate" as const,
    },
  };
  // The PR's config says how the comparison is measured (as it does for the repeats and the gate).
  await measureOnDevices({
    sides: [
      { side: "baseline", config: baseSide.config.config },
      { side: "candidate", config: scope.config.config },
    ],
    step: { firstRun, runs, cells },
    config: scope.config.config,
    measureBlock: (side, block) => measureRuns(scope, { ...sides[side], ...measureRequestOf(block) }),
    ...(scope.spend ? { budget: scope.spend } : {}),
  });
}

/** The candidate's side alone (a stored-baseline gate, or a baseline being recorded), on the runner's devices. */
export async function measureCandidateSide(
  scope: JobScope,
  step: MeasureStep,
  options: { searchToMaxRuns?: boolean } = {},
): Promise<void> {
  await measureOnDevices({
    sides: [{ side: "candidate", config: scope.config.config }],
    step,
    config: scope.config.config,
    ...(scope.spend ? { budget: scope.spend } : {}),
    measureBlock: (_side, block) =>
      measureRuns(scope, {
        configPath: scope.configPath,
        config: scope.config,
        resultsDir: scope.layout.candidateDir,
        side: null,
        ...measureRequestOf(block),
        ...options,
      }),
  });
}

/** A block of the device plan as a measure request's runs, cells and device. */
export function measureRequestOf(block: DeviceBlock) {
  return {
    firstRun: block.firstRun,
    runs: block.runs,
    cells: block.cells,
    ...(block.firstRunByCell ? { firstRunByCell: block.firstRunByCell } : {}),
    ...(block.runsByCell ? { runsByCell: block.runsByCell } : {}),
    ...(block.device ? { device: block.device } : {}),
  };
}

/**
 * How this job will measure, decided before any GPU time is spent: interleaved with the base commit's
 * config (read and checked when the job opened, `prepareBaseSide`), or this commit's side alone, with
 * the reason when `auto` could not run interleaved. The gate finds its baseline between this and
 * `measureCandidate`.
 */
export async function prepareMeasuring(scope: JobScope, base: BaseSideLoad | null): Promise<Measured> {
  if (scope.plan.source !== "interleaved" || base === null)
    return { mode: "stored", base: null, fallbackReason: null };
  if ("error" in base) throw base.error;
  if ("config" in base) {
    scope.io.info(baseSideLine(repoPathOf(scope), scope.plan.baseSha ?? ""));
    return { mode: "interleaved", base, fallbackReason: null };
  }
  // Cleaned before it is rendered into the report's first screen: it may quote the base config's error.
  const fallbackReason = scope.outbound.clean(
    `interleaved runs were not possible (${base.reason}), so this PR is gated against the stored baseline`,
  );
  scope.io.notice(fallbackNotice(fallbackReason));
  return { mode: "stored", base: null, fallbackReason };
}

/** The first measuring step as prepared: both sides alternately, or the candidate's side alone. */
export async function measureCandidate(scope: JobScope, measured: Measured): Promise<void> {
  const cells = scope.inputs.cells;
  if (measured.base) {
    await alternate(scope, measured.base, 0, scope.config.config.repeats.min, cells);
    return;
  }
  // A stored baseline is measured once and read by every PR until the next one: it gets repeats.baseline
  // runs, and its capacity searches capacity.max_runs, while a PR's side starts at repeats.min (its
  // searches at their precision) and adds runs only while the comparison is undecided.
  const recording = scope.plan.role === "baseline";
  const runs = recording ? scope.config.config.repeats.baseline : null;
  scope.io.info(measuringLine(cells, scope.configPath, runs));
  if (runs === null) {
    await measureCandidateSide(scope, { firstRun: 0, runs: scope.config.config.repeats.min, cells });
    return;
  }
  // Over two server starts or more, one step each, so main's history sees the start level.
  for (const step of baselineSteps(scope.config.config, runs, cells))
    await measureCandidateSide(scope, step, { searchToMaxRuns: true });
}

/** Path where the base commit's config is written: next to the PR's, so relative paths resolve alike. */
function baseConfigPathFor(configPath: string, baseSha: string): string {
  return join(dirname(configPath), `.vllm-perf-gate-base-${baseSha.slice(0, 12)}.yml`);
}

/** Why there is no base side to run (the config is new in this PR, or it cannot be read). */
class BaseSideUnavailable extends Error {
  override readonly name = "BaseSideUnavailable";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** What preparing the base side reads: the job's plan, paths, config and client, and its environment. */
export type BaseSideSource = Pick<
  JobScope,
  "plan" | "config" | "workingDirectory" | "workspace" | "configPath" | "github" | "context" | "budgetPlan"
> & { env: Readonly<Record<string, string | undefined>> };

/** The base side as prepared when the job opened: its config, why `auto` runs without one, or the error. */
export type BaseSideLoad = BaseSide | { reason: string } | { error: unknown };

/** The config's path as the repository knows it. */
function repoPathOf(scope: Pick<JobScope, "workspace" | "configPath">): string {
  return relative(scope.workspace, scope.configPath).split("\\").join("/");
}

/**
 * The base commit's config, fetched and checked (it parses and validates under this tool version), loaded
 * with the job's environment before the job's secret set is built (its values are secrets too). When
 * `auto` may fall back to the stored baseline, a base side that cannot be had is returned as its reason;
 * an explicit `mode: interleaved` fails with it. Nothing is printed: the job's output does not exist yet.
 */
export async function prepareBaseSide(scope: BaseSideSource): Promise<BaseSide | { reason: string }> {
  let path: string | null = null;
  const oneServer = sidesShareOneServer(scope.config.config.server);
  if (scope.plan.fallbackToStored && oneServer !== null) return { reason: oneServer };
  try {
    path = await fetchBaseConfig(scope);
    // Loaded once for the job; the variables it reads may differ from the PR's: their values are secrets too.
    const loaded = await loadConfig(path, { cwd: scope.workingDirectory, env: scope.env });
    // Measured as the PR's budget plan says, when it has one: both sides' runs alike.
    return { path, config: baseSideWithinBudget(loaded, scope.budgetPlan) };
  } catch (error) {
    if (!scope.plan.fallbackToStored) throw error;
    if (path) await rm(path, { force: true });
    const reason =
      error instanceof BaseSideUnavailable
        ? error.reason
        : `the base commit's config cannot be used: ${briefly((error as Error).message, path, scope)}`;
    return { reason };
  }
}

/** A config error in one line, naming the file as the repository knows it (path at commit). */
function briefly(message: string, path: string | null, scope: BaseSideSource): string {
  const shown = `${repoPathOf(scope)} at ${scope.plan.baseSha?.slice(0, 12)}`;
  const lines = (path ? message.split(path).join(shown) : message)
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length < 2) return lines[0] ?? message;
  // The problems repeat the file name with a line:column; the first one is enough to say what is wrong.
  const first = lines[1]!.startsWith(shown)
    ? lines[1]!.slice(shown.length).replace(/^:\d+:\d+\s*/, "")
    : lines[1];
  return `${lines[0]}, the first: ${first}`;
}

async function fetchBaseConfig(scope: BaseSideSource): Promise<string> {
  const baseSha = scope.plan.baseSha;
  if (!baseSha) {
    const reason = "the pull request's base commit is unknown";
    throw new BaseSideUnavailable(reason, `interleaved runs need the pull request's base commit`);
  }
  const repoPath = repoPathOf(scope);
  if (repoPath.startsWith("..")) {
    const reason = `config ${scope.configPath} is outside the checked-out repository`;
    throw new BaseSideUnavailable(reason, reason);
  }
  const text = await readFileAtCommit(scope.github(), {
    owner: scope.context.owner,
    repo: scope.context.repo,
    path: repoPath,
    ref: baseSha,
  }).catch((error: unknown) => {
    if (httpStatusOf(error) !== 404) {
      // After the client's retries: named with its call and status (or rate limit), for the first screen.
      const failure = failureText(error);
      throw new BaseSideUnavailable(
        `${repoPath} could not be read at the base commit ${baseSha.slice(0, 12)}: ${failure}`,
        `reading the base commit's config: ${failure}`,
      );
    }
    throw new BaseSideUnavailable(
      `${repoPath} does not exist at the base commit ${baseSha.slice(0, 12)}`,
      `mode interleaved: ${repoPath} does not exist at the base commit ${baseSha.slice(0, 12)}, so there is no base side to run; use mode gate (stored baseline) for this PR`,
    );
  });
  const path = baseConfigPathFor(scope.configPath, baseSha);
  await writeFile(path, text);
  return path;
}

/** The aggregate job's candidate (and base side): the parts the matrix jobs of this run uploaded. */
export async function collectParts(scope: JobScope): Promise<Measured> {
  const { store, layout } = scope;
  const prefix = `${scope.inputs.artifactName}-part-`;
  const parts = (await store.listCurrentRun()).filter((artifact) => artifact.name.startsWith(prefix));
  if (parts.length === 0) {
    throw new Error(
      `no partial results named ${prefix}* in this workflow run: the matrix jobs need \`cells\` set and the same \`artifact-name\`, and this job needs \`needs:\` on them`,
    );
  }
  let mode: Measured["mode"] = "stored";
  const owner = new Map<string, string>();
  for (const part of parts.sort((a, b) => a.name.localeCompare(b.name))) {
    const partDir = join(layout.downloadDir, "parts", part.name);
    await store.download(part, partDir);
    for (const side of ["candidate", "baseline"] as const) {
      const from = join(partDir, side);
      if (!(await exists(from))) continue;
      if (side === "baseline") mode = "interleaved";
      const to = side === "candidate" ? layout.candidateDir : layout.baselineSideDir;
      for (const cell of await readdir(from)) {
        const key = `${side}/${cell}`;
        const previous = owner.get(key);
        if (previous)
          throw new Error(`cell ${cell} was measured by two matrix jobs (${previous} and ${part.name})`);
        owner.set(key, part.name);
        await cp(join(from, cell), join(to, cell), { recursive: true });
      }
    }
  }
  // Parts are downloaded files like any baseline: checked before anything reads them.
  await validateBaselineDir(layout.candidateDir);
  if (mode === "interleaved") await validateBaselineDir(layout.baselineSideDir);
  scope.io.info(aggregatedLine(parts.map((part) => part.name)));
  return { mode, base: null, fallbackReason: null };
}
