import { cp, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { environmentValuesOf, loadConfig } from "../config/load.js";
import { readFileAtCommit } from "../github/base-config.js";
import { validateBaselineDir } from "../github/baseline-bundle.js";
import { httpStatusOf } from "../github/client.js";
import { alternatingBlocks } from "../runner/interleaved.js";
import { exists, type JobScope, type Measured } from "./job-scope.js";

/**
 * Producing the candidate's results: measure this commit's config, alternate it with the base commit's
 * (interleaved), or gather the parts a matrix measured (aggregate).
 */

export function measureRuns(
  scope: JobScope,
  run: {
    configPath: string;
    resultsDir: string;
    firstRun: number;
    runs: number | null;
    cells: string[] | null;
    side: "baseline" | "candidate" | null;
  },
): Promise<void> {
  return scope.deps.measure({
    ...run,
    serverStateFile: scope.layout.serverStateFile,
    workingDirectory: scope.workingDirectory,
  });
}

/**
 * The base and head configs measured alternately, one run of each per pair in the order A B, B A, ...
 * (see alternatingBlocks). Consecutive runs of one side are one measure call, so one server start per
 * cell: R pairs cost R + 1 starts per cell, not 2R.
 */
export async function alternate(
  scope: JobScope,
  baseConfigPath: string,
  firstRun: number,
  pairs: number,
  cells: string[] | null,
): Promise<void> {
  const base = {
    configPath: baseConfigPath,
    resultsDir: scope.layout.baselineSideDir,
    side: "baseline" as const,
  };
  const head = {
    configPath: scope.configPath,
    resultsDir: scope.layout.candidateDir,
    side: "candidate" as const,
  };
  for (const block of alternatingBlocks(firstRun, pairs, [base, head])) {
    await measureRuns(scope, { ...block.side, firstRun: block.firstRun, runs: block.runs, cells });
  }
}

export async function measureCandidate(scope: JobScope): Promise<Measured> {
  const { source } = scope.plan;
  if (source === "aggregate") return collectParts(scope);
  if (source === "interleaved") {
    const baseConfigPath = await fetchBaseConfig(scope);
    // The base side's config may read other variables: their values are secrets too.
    scope.redactor = scope.redactor.with(await environmentValuesOf(baseConfigPath));
    const { config } = await loadConfig(scope.configPath);
    await alternate(scope, baseConfigPath, 0, config.repeats.min, scope.inputs.cells);
    return { mode: "interleaved", baseConfigPath };
  }
  const cells = scope.inputs.cells;
  // A stored baseline is measured once and read by every PR until the next one: it gets repeats.baseline
  // runs, while a PR's side starts at repeats.min and adds runs only while the comparison is undecided.
  const runs =
    scope.plan.role === "baseline"
      ? (await loadConfig(scope.configPath, { cwd: scope.workingDirectory })).config.repeats.baseline
      : null;
  scope.io.info(
    `Measuring ${cells ? `cells ${cells.join(", ")}` : "every cell"} of ${scope.configPath}${runs === null ? "" : ` (${runs} baseline runs per cell, repeats.baseline)`}.`,
  );
  await measureRuns(scope, {
    configPath: scope.configPath,
    resultsDir: scope.layout.candidateDir,
    firstRun: 0,
    runs,
    cells,
    side: null,
  });
  return { mode: "stored", baseConfigPath: null };
}

/** Path where the base commit's config is written: next to the PR's, so relative paths resolve alike. */
export function baseConfigPathFor(configPath: string, baseSha: string): string {
  return join(dirname(configPath), `.vllm-perf-gate-base-${baseSha.slice(0, 12)}.yml`);
}

async function fetchBaseConfig(scope: JobScope): Promise<string> {
  const baseSha = scope.plan.baseSha;
  if (!baseSha) throw new Error("interleaved runs need the pull request's base commit");
  const repoPath = relative(scope.workspace, scope.configPath).split("\\").join("/");
  if (repoPath.startsWith(".."))
    throw new Error(`config ${scope.configPath} is outside the checked-out repository`);
  const text = await readFileAtCommit(scope.github(), {
    owner: scope.context.owner,
    repo: scope.context.repo,
    path: repoPath,
    ref: baseSha,
  }).catch((error: unknown) => {
    if (httpStatusOf(error) !== 404) throw error;
    throw new Error(
      `mode interleaved: ${repoPath} does not exist at the base commit ${baseSha.slice(0, 12)}, so there is no base side to run; use mode gate (stored baseline) for this PR`,
    );
  });
  const path = baseConfigPathFor(scope.configPath, baseSha);
  await writeFile(path, text);
  scope.io.info(`Base side runs ${repoPath} as of ${baseSha.slice(0, 12)}.`);
  return path;
}

async function collectParts(scope: JobScope): Promise<Measured> {
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
  scope.io.info(
    `Aggregated ${parts.length} partial result(s): ${parts.map((part) => part.name).join(", ")}.`,
  );
  return { mode, baseConfigPath: null };
}
