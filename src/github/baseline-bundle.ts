import { lstat, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { z } from "zod";
import { defaultInputLimits, type InputLimits } from "../compare/inputs/input-limits.js";
import { runFileInvariantIssues, runFileSchema } from "../metrics/run-schema.js";
import { toolName, toolVersion } from "../version.js";

/**
 * A baseline artifact is a results directory (`<cell>/run-<k>/run.json`, logs, scrapes) plus a manifest
 * saying which commit and run produced it. A downloaded one is untrusted input (any PR of the base branch
 * could have shaped it): it is size-limited, every file we read is schema-validated, symlinks are
 * refused, and strings from it are escaped before they reach markdown.
 */

export const baselineManifestFile = "vllm-perf-gate-baseline.json";
const baselineManifestSchemaVersion = 1;

const baselineManifestSchema = z.object({
  schemaVersion: z.literal(baselineManifestSchemaVersion),
  tool: z.object({ name: z.string().max(100), version: z.string().max(100) }),
  commit: z.string().regex(/^[0-9a-f]{40,64}$/, "expected a full commit sha"),
  ref: z.string().max(255),
  runId: z.number().int().nonnegative(),
  runAttempt: z.number().int().positive(),
  createdAt: z.iso.datetime(),
  cells: z
    .array(
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9_.-]*$/)
        .max(200),
    )
    .max(1000),
});
export type BaselineManifest = z.output<typeof baselineManifestSchema>;

/**
 * The input limits every reader applies (compare/inputs/input-limits.ts), plus the compression ratio an
 * archive entry may have: ours compress about 5-20:1 (JSON lines), a deflate bomb about 1000:1.
 */
export interface BaselineLimits extends InputLimits {
  maxCompressionRatio: number;
}

export const defaultBaselineLimits: Readonly<BaselineLimits> = Object.freeze({
  ...defaultInputLimits,
  maxCompressionRatio: 200,
});

export class UntrustedBaselineError extends Error {
  override readonly name = "UntrustedBaselineError";
}

export function createBaselineManifest(fields: {
  commit: string;
  ref: string;
  runId: number;
  runAttempt: number;
  cells: string[];
  now: Date;
}): BaselineManifest {
  return baselineManifestSchema.parse({
    schemaVersion: baselineManifestSchemaVersion,
    tool: { name: toolName, version: toolVersion },
    commit: fields.commit,
    ref: fields.ref,
    runId: fields.runId,
    runAttempt: fields.runAttempt,
    createdAt: fields.now.toISOString(),
    cells: [...fields.cells].sort(),
  });
}

export async function writeBaselineManifest(resultsDir: string, manifest: BaselineManifest): Promise<void> {
  await writeFile(join(resultsDir, baselineManifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Cells that have at least one run.json (`<cell>/run-<k>/run.json`), with their run counts. */
export async function countRuns(resultsDir: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let cells: import("node:fs").Dirent[];
  try {
    cells = await readdir(resultsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return counts;
    throw error;
  }
  for (const cell of cells.filter((entry) => entry.isDirectory())) {
    const runs = await readdir(join(resultsDir, cell.name), { withFileTypes: true });
    let count = 0;
    for (const run of runs) {
      if (!run.isDirectory() || !/^run-\d+$/.test(run.name)) continue;
      if (
        await lstat(join(resultsDir, cell.name, run.name, "run.json")).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        count++;
    }
    if (count > 0) counts.set(cell.name, count);
  }
  return counts;
}

export interface ValidatedBaseline {
  manifest: BaselineManifest | null;
  runFiles: number;
  cells: string[];
}

/**
 * Checks a downloaded baseline before anything reads it. The manifest is optional (a `baseline-path`
 * of plain results has none); run files are mandatory.
 */
export async function validateBaselineDir(
  dir: string,
  limits: BaselineLimits = defaultBaselineLimits,
): Promise<ValidatedBaseline> {
  const fail = (file: string, message: string): never => {
    throw new UntrustedBaselineError(`baseline ${relative(dir, file) || file}: ${message}`);
  };
  let totalBytes = 0;
  let files = 0;
  const runFiles: string[] = [];
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isSymbolicLink()) fail(path, "symbolic links are not allowed in a baseline");
      if (entry.isDirectory()) {
        await walk(path);
        continue;
      }
      if (!entry.isFile()) fail(path, "only regular files are allowed in a baseline");
      files++;
      totalBytes += (await lstat(path)).size;
      if (files > limits.maxFiles) fail(dir, `more than ${limits.maxFiles} files (limit maxFiles)`);
      if (totalBytes > limits.maxTotalBytes)
        fail(dir, `larger than ${limits.maxTotalBytes} bytes (limit maxTotalBytes)`);
      if (entry.name === "run.json") runFiles.push(path);
    }
  };
  await walk(dir);
  if (runFiles.length === 0) fail(dir, "no <cell>/run-<k>/run.json file found");

  const cells = new Set<string>();
  for (const file of runFiles) {
    const size = (await lstat(file)).size;
    if (size > limits.maxRunFileBytes)
      fail(file, `${size} bytes, more than the ${limits.maxRunFileBytes} allowed (limit maxRunFileBytes)`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      fail(file, `not JSON (${(error as Error).message})`);
    }
    const result = runFileSchema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      fail(file, `field ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
    } else {
      const inconsistent = runFileInvariantIssues(result.data)[0];
      if (inconsistent) fail(file, `field ${inconsistent.field}: ${inconsistent.message}`);
      const cellDir = basename(dirname(dirname(file)));
      if (result.data.cell !== cellDir) fail(file, `field cell: expected "${cellDir}" (its directory)`);
      cells.add(result.data.cell);
    }
  }

  let manifest: BaselineManifest | null = null;
  const manifestPath = join(dir, baselineManifestFile);
  const manifestText = await readFile(manifestPath, "utf8").catch(() => null);
  if (manifestText !== null) {
    if (manifestText.length > 1024 * 1024) fail(manifestPath, "manifest larger than 1 MiB");
    let raw: unknown;
    try {
      raw = JSON.parse(manifestText);
    } catch (error) {
      fail(manifestPath, `not JSON (${(error as Error).message})`);
    }
    const result = baselineManifestSchema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      fail(manifestPath, `field ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
    }
    manifest = result.data ?? null;
  }
  return { manifest, runFiles: runFiles.length, cells: [...cells].sort() };
}
