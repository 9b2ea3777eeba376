import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { z } from "zod";
import { InputError } from "../cli/errors.js";
import { runFileSchema, runFileSchemaVersion } from "../metrics/run-schema.js";
import { looksLikeVllmResult, runRecordFromVllmResult, vllmResultSchema } from "../metrics/vllm-result.js";
import { type RunRecord, runRecordFromRunFile } from "./run-record.js";

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

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(
      `${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/** Parses one file: a run.json (has schemaVersion) or a vLLM result (has request_throughput). */
export async function readRunFile(file: string, index: number): Promise<RunRecord> {
  const json = await readJson(file);
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "schemaVersion" in json) {
    const version = (json as { schemaVersion: unknown }).schemaVersion;
    if (version !== runFileSchemaVersion) {
      throw new InputError(
        `${file}: schemaVersion: expected ${runFileSchemaVersion} (the run.json version this tool reads), got ${JSON.stringify(version)}`,
      );
    }
    const parsed = runFileSchema.safeParse(json);
    if (!parsed.success) throw new InputError(describeIssues(file, parsed.error));
    return runRecordFromRunFile(parsed.data, file);
  }
  if (looksLikeVllmResult(json)) {
    const parsed = vllmResultSchema.safeParse(json);
    if (!parsed.success) throw new InputError(describeIssues(file, parsed.error));
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
    else if (entry.isDirectory() && depth > 0) found.push(...(await findRunFiles(path, depth - 1)));
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
  // A directory of `vllm bench serve` results (one JSON per run).
  const entries = (await readdir(path))
    .filter((name) => name.endsWith(".json") && name !== "verdict.json")
    .sort();
  if (entries.length > 0) return { files: entries.map((name) => join(path, name)), isDirectory: true };
  throw new InputError(
    `${path}: no run.json files (expected ${basename(path)}/<cell>/run-<k>/run.json) and no result JSON files`,
  );
}

export async function loadRuns(paths: readonly string[], side: string): Promise<RunRecord[]> {
  if (paths.length === 0)
    throw new InputError(`--${side}: expected at least one results directory or result file`);
  // Each directory is one session (one job); loose files together form one.
  const files: { file: string; session: string }[] = [];
  for (const path of paths) {
    const expanded = await expandPath(path);
    for (const file of expanded.files) files.push({ file, session: expanded.isDirectory ? path : "(files)" });
  }
  // Reads overlap; the first failure in input order is the one reported, so messages are stable.
  const settled = await Promise.allSettled(
    files.map(
      async ({ file, session }, index): Promise<RunRecord> => ({
        ...(await readRunFile(file, index)),
        session,
      }),
    ),
  );
  const failure = settled.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<RunRecord>).value);
}
