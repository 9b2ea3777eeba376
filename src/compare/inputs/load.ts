import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { z } from "zod";
import { type RunRecord, runRecordFromRunFile } from "../../metrics/run-record.js";
import {
  type InvariantIssue,
  runFileInvariantIssues,
  runFileSchema,
  runFileSchemaVersion,
} from "../../metrics/run-schema.js";
import {
  looksLikeVllmResult,
  runRecordFromVllmResult,
  vllmResultInvariantIssues,
  vllmResultSchema,
} from "../../metrics/vllm-result.js";
import { type ExternalTaskFile, externalTaskFileSchema } from "../../runner/external-task.js";
import { InputError } from "../../util/errors.js";
import { appendAll } from "../../util/extremes.js";
import { defaultInputLimits, type InputLimits, mebibyte } from "./input-limits.js";
import { assignServerStarts, type ServerStartSummary, summarizeServerStarts } from "./server-starts.js";

/**
 * Reads the inputs of one side of a comparison: results directories written by `run`
 * (DIR/<cell>/run-<k>/run.json) and/or `vllm bench serve` result files. Every problem is an
 * InputError naming the file and the field.
 */

function describeIssues(file: string, error: z.ZodError): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
    return `  ${field}: ${issue.message}`;
  });
  const more = error.issues.length > 5 ? `\n  ... and ${error.issues.length - 5} more` : "";
  return `${file}: invalid content\n${lines.join("\n")}${more}`;
}

/** Each field alone was valid; together they cannot be (a forged or edited file). */
function throwOnInconsistency(file: string, issues: readonly InvariantIssue[]): void {
  if (issues.length === 0) return;
  const lines = issues.slice(0, 5).map((issue) => `  ${issue.field}: ${issue.message}`);
  const more = issues.length > 5 ? `\n  ... and ${issues.length - 5} more` : "";
  throw new InputError(`${file}: inconsistent content\n${lines.join("\n")}${more}`);
}

/**
 * Result files are a few levels deep; JSON.parse accepts any depth, but every recursive walk after
 * it (hashing, the fingerprint diff) would overflow the stack on a million nested brackets.
 */
const maxJsonDepth = 64;

/** Depth of a parsed JSON value, walked without recursion; stops counting past `limit`. */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof current !== "object" || current === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current))
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: level });
  }
  return deepest;
}

async function readJson(
  file: string,
  /** Runs on the parsed value before anything walks it (limits cheaper to check than the walks). */
  check: (json: unknown) => void = () => {},
): Promise<{ json: unknown; contentHash: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(
      `${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  check(json);
  const depth = nestingDepth(json, maxJsonDepth);
  if (depth > maxJsonDepth) {
    throw new InputError(
      `${file}: nested deeper than ${maxJsonDepth} levels (limit maxJsonDepth; a result file needs fewer than 10)`,
    );
  }
  // A run.json (a few KiB) is hashed re-serialised, so a copy that was only re-indented is still the
  // same run; a vLLM result can hold hundreds of KiB of per-request lists, where re-serialising costs
  // ~2 ms a file, so its bytes are hashed (byte-identical copies).
  const canonical = typeof json === "object" && json !== null && "schemaVersion" in json;
  const contentHash = createHash("sha256")
    .update(canonical ? JSON.stringify(json) : text)
    .digest("hex");
  return { json, contentHash };
}

/** Parses one file: a run.json (has schemaVersion) or a vLLM result (has request_throughput). */
export async function readRunFile(
  file: string,
  index: number,
  limits: Pick<InputLimits, "maxFingerprintFields"> = defaultInputLimits,
): Promise<RunRecord> {
  const { json, contentHash } = await readJson(file, (parsed) =>
    checkFingerprintSize(file, parsed, limits.maxFingerprintFields),
  );
  const record = parseRunJson(file, json, index);
  const positional = looksLikeVllmResult(json);
  const external = positional ? [] : await readExternalTaskFiles(dirname(file));
  return {
    ...record,
    ...(external.length > 0 ? { external } : {}),
    identity: {
      contentHash,
      cell: record.cell,
      run: positional ? null : record.run,
      startedAt: record.startedAt,
    },
  };
}

/**
 * Refuses a run.json whose fingerprint records more than `limit` conditions (flattened fields, as
 * compare diffs them), before the schema walks them: every comparison and report would diff them all.
 */
function checkFingerprintSize(file: string, json: unknown, limit: number): void {
  if (typeof json !== "object" || json === null || !("fingerprint" in json)) return;
  let fields = 0;
  const stack: unknown[] = [(json as { fingerprint: unknown }).fingerprint];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || Array.isArray(node)) {
      fields++;
    } else {
      const values = Object.values(node);
      if (values.length === 0) fields++;
      for (const value of values) stack.push(value);
    }
    if (fields > limit) {
      throw new InputError(
        `${file}: fingerprint: more than ${limit} recorded conditions (limit maxFingerprintFields; a run records about a hundred)`,
      );
    }
  }
}

/** The external task results (external-<name>.json) beside a run.json; a malformed one is bad input. */
async function readExternalTaskFiles(dir: string): Promise<ExternalTaskFile[]> {
  const names = (await readdir(dir)).filter((name) => /^external-.+\.json$/.test(name)).sort();
  const files: ExternalTaskFile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, "utf8"));
    } catch (error) {
      throw new InputError(`${path}: not JSON (${(error as Error).message})`);
    }
    const parsed = externalTaskFileSchema.safeParse(json);
    if (!parsed.success) throw new InputError(describeIssues(path, parsed.error));
    files.push(parsed.data);
  }
  return files;
}

function parseRunJson(file: string, json: unknown, index: number): RunRecord {
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "schemaVersion" in json) {
    const version = (json as { schemaVersion: unknown }).schemaVersion;
    if (version !== runFileSchemaVersion) {
      throw new InputError(
        `${file}: schemaVersion: expected ${runFileSchemaVersion} (the run.json version this tool reads), got ${JSON.stringify(version)}`,
      );
    }
    const parsed = runFileSchema.safeParse(json);
    if (!parsed.success) throw new InputError(describeIssues(file, parsed.error));
    throwOnInconsistency(file, runFileInvariantIssues(parsed.data));
    return runRecordFromRunFile(parsed.data, file);
  }
  if (looksLikeVllmResult(json)) {
    const parsed = vllmResultSchema.safeParse(json);
    if (!parsed.success) throw new InputError(describeIssues(file, parsed.error));
    throwOnInconsistency(file, vllmResultInvariantIssues(parsed.data));
    return runRecordFromVllmResult(parsed.data, file, index);
  }
  throw new InputError(
    `${file}: not a run result: expected a run.json (with schemaVersion) or a \`vllm bench serve\` result (with request_throughput)`,
  );
}

async function findRunFiles(dir: string, depth: number): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === "run.json") found.push(path);
    else if (entry.isDirectory() && depth > 0) appendAll(found, await findRunFiles(path, depth - 1));
  }
  return found;
}

/**
 * A `vllm bench sweep serve` output (vllm/benchmarks/sweep/serve.py): one directory per parameter
 * combination (or the experiment directory itself without --serve-params/--bench-params) holding
 * `run=<n>.json` per measured run, a vLLM result with the combination's parameters added, beside
 * `summary.json` (the list of those runs), `warmup.json` and `run=<n>.failure.json`, which are not runs.
 */
const sweepRunFileName = /^run=\d+\.json$/;

async function findSweepRunFiles(dir: string, depth: number): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile() && sweepRunFileName.test(entry.name)) found.push(path);
    else if (entry.isDirectory() && depth > 0) appendAll(found, await findSweepRunFiles(path, depth - 1));
  }
  return found;
}

async function expandPath(path: string): Promise<{ files: string[]; isDirectory: boolean }> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    throw new InputError(
      `${path}: no such file or directory (expected a results directory or a result JSON file)`,
    );
  }
  if (!info.isDirectory()) return { files: [path], isDirectory: false };
  const runFiles = await findRunFiles(path, 3);
  if (runFiles.length > 0) return { files: runFiles, isDirectory: true };
  const sweepFiles = await findSweepRunFiles(path, 2);
  if (sweepFiles.length > 0) return { files: sweepFiles, isDirectory: true };
  // A directory of `vllm bench serve` results (one JSON per run).
  const entries = (await readdir(path))
    .filter((name) => name.endsWith(".json") && name !== "verdict.json")
    .sort();
  if (entries.length > 0) return { files: entries.map((name) => join(path, name)), isDirectory: true };
  throw new InputError(
    `${path}: no run.json files (expected ${basename(path)}/<cell>/run-<k>/run.json), no \`vllm bench sweep serve\` runs (run=<n>.json) and no result JSON files`,
  );
}

function mib(bytes: number): string {
  return `${(bytes / mebibyte).toFixed(bytes < 10 * mebibyte ? 2 : 1)} MiB`;
}

/**
 * Checks the sizes before anything is read (a 200 MB file would otherwise take minutes and GBs):
 * each file against maxRunFileBytes, all files of both sides against maxTotalBytes, in input order
 * so the message is stable. Only regular files are read (a FIFO would block forever).
 */
async function checkInputSizes(
  files: readonly string[],
  limits: InputLimits,
  budget: { bytes: number },
): Promise<void> {
  for (const file of files) {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(file);
    } catch (error) {
      throw new InputError(
        `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    if (!info.isFile()) throw new InputError(`${file}: not a regular file (expected a result JSON file)`);
    if (info.size > limits.maxRunFileBytes) {
      throw new InputError(
        `${file}: ${mib(info.size)} (${info.size} bytes), more than the ${mib(limits.maxRunFileBytes)} allowed for one result file (limit maxRunFileBytes; raise it with compare --max-file-mb)`,
      );
    }
    budget.bytes += info.size;
    if (budget.bytes > limits.maxTotalBytes) {
      throw new InputError(
        `${file}: the inputs reach ${mib(budget.bytes)} with this file, more than the ${mib(limits.maxTotalBytes)} allowed for all result files together (limit maxTotalBytes; raise it with compare --max-total-mb)`,
      );
    }
  }
}

/**
 * Runs `work` over items with at most `width` at a time, results in input order. After a failure no
 * new item is started (those before it in input order all were), so bad input fails without reading
 * the rest.
 */
async function boundedAll<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
) {
  const settled: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        settled[index] = { status: "fulfilled", value: await work(items[index] as T, index) };
      } catch (reason) {
        settled[index] = { status: "rejected", reason };
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return settled;
}

export interface LoadOptions {
  limits?: InputLimits;
  /** Refuse more than limits.maxRunsPerCell distinct runs of a cell (one side of a comparison). */
  capRunsPerCell?: boolean;
  /** Shared between the sides so maxTotalBytes bounds everything one comparison reads. */
  budget?: { bytes: number };
  /**
   * Runs whose file records no server start were each a fresh start (compare --fresh-starts,
   * gate.runs_are_fresh_starts); default false: an input's such runs are taken to share one start.
   */
  freshStarts?: boolean;
}

export async function loadRuns(
  paths: readonly string[],
  side: string,
  options: LoadOptions = {},
): Promise<RunRecord[]> {
  const limits = options.limits ?? defaultInputLimits;
  if (paths.length === 0)
    throw new InputError(`--${side}: expected at least one results directory or result file`);
  // Each directory is one session (one job); loose files together form one.
  const files: { file: string; session: string }[] = [];
  for (const path of paths) {
    const expanded = await expandPath(path);
    for (const file of expanded.files) files.push({ file, session: expanded.isDirectory ? path : "(files)" });
    if (files.length > limits.maxFiles) {
      throw new InputError(
        `--${side}: more than ${limits.maxFiles} result files (limit maxFiles), the last from ${path}`,
      );
    }
  }
  await checkInputSizes(
    files.map(({ file }) => file),
    limits,
    options.budget ?? { bytes: 0 },
  );
  // A few reads overlap (not all: every text is in memory until parsed); the first failure in input
  // order is the one reported, so messages are stable.
  const cap = options.capRunsPerCell ? runsPerCellCap(side, limits.maxRunsPerCell) : null;
  const settled = await boundedAll(files, 4, async ({ file, session }, index): Promise<RunRecord> => {
    const record: RunRecord = { ...(await readRunFile(file, index, limits)), session };
    cap?.(record);
    return record;
  });
  const failure = settled.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
  const records = numberPositionalRuns(
    settled.map((result) => (result as PromiseFulfilledResult<RunRecord>).value),
  );
  // Every run knows its server start: the recorded one, else the input's shared one (or its own, declared).
  return assignServerStarts(records, side, { freshStarts: options.freshStarts ?? false });
}

/**
 * A `vllm bench serve` file has no run index: its cell is its label and its run is its place among
 * the files of that cell and session (0, 1, ...), so `run 2` of a cell is the third file of that cell
 * rather than the third file given.
 */
function numberPositionalRuns(records: readonly RunRecord[]): RunRecord[] {
  const next = new Map<string, number>();
  return records.map((record) => {
    if (record.identity === undefined || record.identity.run !== null) return record;
    const key = JSON.stringify([record.session ?? "", record.cell]);
    const run = next.get(key) ?? 0;
    next.set(key, run + 1);
    return { ...record, run };
  });
}

function listSources(records: readonly RunRecord[], cell: string): string {
  const sources = records.filter((record) => record.cell === cell).map((record) => record.source);
  const shown = sources.slice(0, 3).join(", ");
  return sources.length > 3 ? `${shown} and ${sources.length - 3} more` : shown;
}

/**
 * Refuses two sides that have no cell in common when `vllm bench serve` files are among the inputs
 * (unless each side has exactly one cell, which analysis pairs with a warning): their cells come from
 * labels, and nothing matching means the labels are missing or name something else (files without a
 * label are all cell "default"), so the verdict would blame missing runs. Results directories alone
 * keep their verdict: their cells are the config's, and a cell renamed by the PR is reported per cell.
 */
function checkCellsMatch(baseline: readonly RunRecord[], candidate: readonly RunRecord[]): void {
  const baseCells = [...new Set(baseline.map((record) => record.cell))];
  const candCells = [...new Set(candidate.map((record) => record.cell))];
  if (baseCells.length === 0 || candCells.length === 0) return;
  if (![...baseline, ...candidate].some((record) => record.identity?.run === null)) return;
  if (baseCells.some((cell) => candCells.includes(cell))) return;
  if (baseCells.length === 1 && candCells.length === 1) return;
  const describe = (records: readonly RunRecord[], cells: readonly string[]) =>
    cells.map((cell) => `  "${cell}": ${listSources(records, cell)}`).join("\n");
  const unlabelled = [...baseline, ...candidate].some(
    (record) => record.cell === "default" && record.identity?.run === null,
  );
  const hint = unlabelled
    ? 'vLLM result files are grouped into cells by their "label"; a file without one is cell "default": give each file its cell name as label (vllm bench serve --label NAME; `run --format vllm` writes it)'
    : "compare results of the same config (the same cell names), or one cell per side";
  throw new InputError(
    `the baseline and the candidate have no cell in common, so nothing can be compared (exit 2, nothing was judged):\nbaseline cells:\n${describe(baseline, baseCells)}\ncandidate cells:\n${describe(candidate, candCells)}\n${hint}`,
  );
}

function describeRun(record: RunRecord): string {
  const run = record.identity ? record.identity.run : record.run;
  const index = run === null ? "" : ` run-${run}`;
  const started = record.startedAt ? ` started ${record.startedAt}` : "";
  return `cell ${record.cell}${index}${started}`;
}

/** What makes two records one run read twice (see dropDuplicateRuns); null without an identity. */
function duplicateKey(record: RunRecord): string | null {
  const id = record.identity;
  return id === undefined ? null : JSON.stringify([id.contentHash, id.cell, id.run, id.startedAt]);
}

/**
 * A run is its content (the hash of its parsed JSON) plus its identity (cell, run index, start
 * time): two records with both equal are one run read twice (a copied file or cell directory, the
 * same directory given twice), and counting it twice would narrow the intervals with no new
 * evidence. Within a side the first is kept and the others dropped, each with a note; the same run
 * on both sides is refused, since a run cannot be its own baseline.
 */
function dropDuplicateRuns(
  baseline: readonly RunRecord[],
  candidate: readonly RunRecord[],
): { baseline: RunRecord[]; candidate: RunRecord[]; notes: string[] } {
  const keyOf = duplicateKey;
  const notes: string[] = [];
  const dedupe = (records: readonly RunRecord[], side: string) => {
    const seen = new Map<string, RunRecord>();
    const kept: RunRecord[] = [];
    const dropped = new Map<RunRecord, string[]>();
    for (const record of records) {
      const key = keyOf(record);
      const first = key === null ? undefined : seen.get(key);
      if (first) {
        dropped.set(first, [...(dropped.get(first) ?? []), record.source]);
        continue;
      }
      if (key !== null) seen.set(key, record);
      kept.push(record);
    }
    for (const [first, copies] of dropped) {
      notes.push(
        `${side}: ${copies.length} duplicate${copies.length === 1 ? "" : "s"} of ${describeRun(first)} (${first.source}) dropped, counted once: ${copies.join(", ")}`,
      );
    }
    return { kept, seen };
  };
  const base = dedupe(baseline, "baseline");
  const cand = dedupe(candidate, "candidate");
  for (const [key, record] of cand.seen) {
    const twin = base.seen.get(key);
    if (twin) {
      throw new InputError(
        `${record.source}: the same run (${describeRun(record)}, identical content) is on both sides, also as ${twin.source}: a run cannot be its own baseline`,
      );
    }
  }
  return { baseline: base.kept, candidate: cand.kept, notes };
}

/**
 * Counts a side's runs per cell as they are read and refuses the run past `limit`, naming its file:
 * more runs than repeats.max allows are not one job's, and the analysis's cross-checks grow with the
 * product of both sides' runs. Copies of one run (dropDuplicateRuns' key) count once.
 */
function runsPerCellCap(side: string, limit: number): (record: RunRecord) => void {
  const distinct = new Map<string, Set<string>>();
  return (record) => {
    const runs = distinct.get(record.cell) ?? new Set<string>();
    distinct.set(record.cell, runs);
    runs.add(duplicateKey(record) ?? record.source);
    if (runs.size > limit) {
      throw new InputError(
        `${record.source}: cell: the ${side} has more than ${limit} runs of cell "${record.cell}" (limit maxRunsPerCell, the most repeats.max allows); give compare one job's runs`,
      );
    }
  };
}

/** Both sides of a comparison as loaded, with what is known of their server starts. */
export interface LoadedSides {
  baseline: RunRecord[];
  candidate: RunRecord[];
  notes: string[];
  /** Per side, its server starts and how each is known (recorded, assumed shared, declared fresh). */
  serverStarts: { baseline: ServerStartSummary; candidate: ServerStartSummary };
}

/**
 * Loads both sides of a comparison with one size budget, then drops duplicated runs (notes for the
 * verdict's warnings) or refuses a run that is on both sides, and refuses sides without a common cell.
 */
export async function loadSides(
  baselinePaths: readonly string[],
  candidatePaths: readonly string[],
  limits: InputLimits = defaultInputLimits,
  options: Pick<LoadOptions, "freshStarts"> = {},
): Promise<LoadedSides> {
  const budget = { bytes: 0 };
  const load = (paths: readonly string[], side: string) =>
    loadRuns(paths, side, { limits, budget, capRunsPerCell: true, ...options });
  const baseline = await load(baselinePaths, "baseline");
  const candidate = await load(candidatePaths, "candidate");
  const sides = dropDuplicateRuns(baseline, candidate);
  checkCellsMatch(sides.baseline, sides.candidate);
  return {
    ...sides,
    serverStarts: {
      baseline: summarizeServerStarts(sides.baseline),
      candidate: summarizeServerStarts(sides.candidate),
    },
  };
}
