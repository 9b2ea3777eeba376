import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { ExternalTaskConfig } from "../config/schema.js";
import type { Outbound } from "../server/outbound.js";
import { InputError } from "../util/errors.js";

/**
 * The `external` form of the task-accuracy check (docs/quality.md, External tasks): a command such as an
 * lm-eval-harness invocation, run against the cell's server while it is up, its JSON result read by the
 * configured dotted paths and kept as external-<name>.json beside the run's run.json. The command runs
 * without a shell; its arguments are templates ({base_url}, {model}, {output_dir}, {result_file}) and
 * the file records the templates, not the values.
 */

const externalTaskFileSchemaVersion = 1;

export const externalTaskFileSchema = z.object({
  schemaVersion: z.literal(externalTaskFileSchemaVersion),
  name: z.string(),
  cell: z.string(),
  run: z.number().int(),
  /** The command as configured (templates, not values). */
  command: z.array(z.string()),
  durationS: z.number().nonnegative(),
  /** The accuracy the result reports (accuracy_path), and the number of samples behind it. */
  accuracy: z.number().min(0).max(1),
  count: z.number().int().nonnegative(),
  /** Per-sample outcomes when the result has them (samples_path); null otherwise. */
  samples: z.array(z.object({ id: z.string(), correct: z.boolean() })).nullable(),
});
export type ExternalTaskFile = z.output<typeof externalTaskFileSchema>;

function externalTaskFileName(name: string): string {
  return `external-${name}.json`;
}

export interface ExternalTaskRun {
  cell: string;
  run: number;
  /** The run's directory: the result file goes there, the command's own files under external-<name>/. */
  dir: string;
  baseUrl: string;
  model: string;
  /** The job's output seam: the result file is written through it (messages are cleaned by the root). */
  outbound: Outbound;
  env?: Readonly<Record<string, string | undefined>>;
  /** An interrupt: the command is stopped (SIGTERM) and the task fails as interrupted. */
  signal?: AbortSignal;
}

/** The longest stretch of the command's output kept for a message. */
const outputTail = 2_000;

/** Runs one external task command, reads its JSON result and writes external-<name>.json; throws InputError. */
export async function runExternalTask(
  spec: ExternalTaskConfig,
  run: ExternalTaskRun,
): Promise<ExternalTaskFile> {
  const outputDir = join(run.dir, `external-${spec.name}`);
  mkdirSync(outputDir, { recursive: true });
  const resultFile = join(outputDir, "result.json");
  const values: Record<string, string> = {
    base_url: run.baseUrl,
    model: run.model,
    output_dir: outputDir,
    result_file: resultFile,
  };
  const argv = spec.command.map((arg) =>
    arg.replace(/\{(base_url|model|output_dir|result_file)\}/g, (_, key: string) => values[key]!),
  );
  const readsFile = spec.command.some((arg) => arg.includes("{result_file}"));
  const what = `quality.tasks.external "${spec.name}" (command \`${spec.command.join(" ")}\`)`;
  const fail = (reason: string): never => {
    throw new InputError(`${what}: ${reason}; the runs measured so far are kept`);
  };
  const started = performance.now();
  const ended = await execute(argv, spec.timeout_s * 1000, run.env, run.signal);
  const durationS = (performance.now() - started) / 1000;
  const tail = (text: string) => (text.length > outputTail ? `…${text.slice(-outputTail)}` : text).trim();
  if (run.signal?.aborted) fail(`stopped by ${String(run.signal.reason ?? "an interrupt")}`);
  if (ended.spawnError !== null) fail(`could not start: ${ended.spawnError}`);
  if (ended.timedOut) {
    fail(`did not finish within ${spec.timeout_s} s (quality.tasks.external[].timeout_s) and was stopped`);
  }
  if (ended.code !== 0) {
    fail(
      `exited with ${ended.code === null ? `signal ${ended.signal}` : `code ${ended.code}`}${ended.stderr.trim() ? `: ${tail(ended.stderr)}` : ""}`,
    );
  }
  const source = readsFile ? "{result_file}" : "its standard output";
  const text = readsFile ? (existsSync(resultFile) ? readFileSync(resultFile, "utf8") : null) : ended.stdout;
  if (text === null) fail(`wrote no result file at {result_file}`);
  let json: unknown;
  try {
    json = JSON.parse(text!);
  } catch {
    fail(
      `printed no JSON on ${source} (expected one JSON document${text!.trim() ? `, got: ${tail(text!).slice(0, 200)}` : ", got nothing"})`,
    );
  }
  const accuracy = at(json, spec.accuracy_path, "accuracy_path", fail);
  if (typeof accuracy !== "number" || !(accuracy >= 0 && accuracy <= 1)) {
    fail(
      `accuracy_path ${spec.accuracy_path}: expected a number from 0 to 1, got ${JSON.stringify(accuracy)}`,
    );
  }
  const samples = spec.samples_path === undefined ? null : readSamples(json, spec, fail);
  let count = samples?.length ?? 0;
  if (spec.count_path !== undefined) {
    const n = at(json, spec.count_path, "count_path", fail);
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
      fail(`count_path ${spec.count_path}: expected a whole number of samples, got ${JSON.stringify(n)}`);
    }
    count = n as number;
  }
  const file = externalTaskFileSchema.parse({
    schemaVersion: externalTaskFileSchemaVersion,
    name: spec.name,
    cell: run.cell,
    run: run.run,
    command: spec.command,
    durationS,
    accuracy,
    count,
    samples,
  });
  run.outbound.writeFileSync(
    join(run.dir, externalTaskFileName(spec.name)),
    `${JSON.stringify(file, null, 2)}\n`,
  );
  return file;
}

/** The value at a dotted path; a missing key fails naming the path, the key and the keys there. */
function at(json: unknown, path: string, field: string, fail: (reason: string) => never): unknown {
  let value = json;
  const walked: string[] = [];
  for (const key of path.split(".")) {
    const keys = typeof value === "object" && value !== null ? Object.keys(value) : null;
    if (keys === null || !Object.hasOwn(value as object, key)) {
      fail(
        `${field} ${path}: no key "${key}" at ${walked.length > 0 ? walked.join(".") : "the top"} of the JSON result` +
          (keys === null
            ? " (not an object there)"
            : ` (keys there: ${keys.slice(0, 20).join(", ") || "none"})`),
      );
    }
    walked.push(key);
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function readSamples(
  json: unknown,
  spec: ExternalTaskConfig,
  fail: (reason: string) => never,
): { id: string; correct: boolean }[] {
  const list = at(json, spec.samples_path!, "samples_path", fail);
  if (!Array.isArray(list)) fail(`samples_path ${spec.samples_path}: expected an array of samples`);
  return (list as unknown[]).map((sample, index) => {
    const row = typeof sample === "object" && sample !== null ? (sample as Record<string, unknown>) : {};
    const id = row[spec.id_field];
    const score = row[spec.score_field];
    if (typeof id !== "string" && typeof id !== "number") {
      fail(`samples_path ${spec.samples_path}[${index}]: expected an id in field "${spec.id_field}"`);
    }
    if (typeof score !== "boolean" && typeof score !== "number") {
      fail(
        `samples_path ${spec.samples_path}[${index}]: expected a score (true/false or a number) in field "${spec.score_field}"`,
      );
    }
    return { id: String(id), correct: typeof score === "boolean" ? score : (score as number) >= 0.5 };
  });
}

interface Ended {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError: string | null;
}

function execute(
  argv: readonly string[],
  timeoutMs: number,
  env?: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ["ignore", "pipe", "pipe"],
      ...(env ? { env: { ...env } } : {}),
      ...(signal ? { signal, killSignal: "SIGTERM" as const } : {}),
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let spawnError: string | null = null;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-64_000);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      spawnError = error.message;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, spawnError });
    });
  });
}
