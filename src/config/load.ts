import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { isMap, isScalar, isSeq, type LineCounter, type Node } from "yaml";
import type { z } from "zod";
import { InputError } from "../util/errors.js";
import { describeValue, maxListedKeys } from "./fields.js";
import {
  type ConfigInterpolation,
  type ConfigPath,
  formatPath,
  interpolateEnvironment,
  type TemplateAt,
} from "./interpolate.js";
import { parseConfigYaml, yamlLimits } from "./parse-yaml.js";
import { type Config, configSchema, duplicateCellNames } from "./schema.js";

export interface ConfigProblem {
  /** `cells[2].load.rate` */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file read. */
  path: string;
  /** sha256 of the file's bytes: part of the fingerprint, so a changed config is never compared silently. */
  sha256: string;
  /** Paths whose values came from `${VAR}`; shown as their template, never as their value. */
  fromEnvironment: Map<string, string>;
  /**
   * The templates by path (for `templateView`) and the values read from the environment (for the job's
   * secret set): whatever is printed or recorded shows the template, and the values are cleaned elsewhere.
   */
  interpolation: ConfigInterpolation;
}

/** Problems listed in a ConfigError's message; the rest are counted (all stay in `problems`). */
export const maxListedProblems = 50;

/** Characters of one problem's message that are printed; the rest are counted. */
export const maxProblemChars = 2_000;

function clip(message: string): string {
  if (message.length <= maxProblemChars) return message;
  return `${message.slice(0, maxProblemChars)}... (${message.length - maxProblemChars} more characters)`;
}

export class ConfigError extends InputError {
  constructor(
    readonly file: string,
    readonly problems: readonly ConfigProblem[],
  ) {
    const rest = problems.length - maxListedProblems;
    super(
      `${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"} in the config\n` +
        problems
          .slice(0, maxListedProblems)
          .map((problem) => {
            const where = problem.line ? `${file}:${problem.line}:${problem.column ?? 1} ` : "";
            return `  ${where}${problem.path}: ${clip(problem.message)}`;
          })
          .join("\n") +
        (rest > 0
          ? `\n  ... and ${rest} more problem${rest === 1 ? "" : "s"} (only the first ${maxListedProblems} are listed)`
          : ""),
    );
  }
}

export const defaultConfigFile = "vllm-perf-gate.yml";

export async function loadConfig(
  file: string,
  options: { env?: Readonly<Record<string, string | undefined>>; cwd?: string } = {},
): Promise<LoadedConfig> {
  const path = isAbsolute(file) ? file : resolve(options.cwd ?? process.cwd(), file);
  let bytes: Buffer;
  try {
    const size = (await stat(path)).size;
    if (size > yamlLimits.maxBytes) {
      throw new ConfigError(file, [
        {
          path: "(file)",
          message: `the file has ${size} bytes; the limit is ${yamlLimits.maxBytes} (1 MiB)`,
        },
      ]);
    }
    bytes = await readFile(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error);
    throw new InputError(
      `${file}: cannot read the config (${reason}). Create one with \`vllm-perf-gate init --preset chat\`.`,
    );
  }
  return parseConfigText(bytes.toString("utf8"), file, {
    env: options.env ?? process.env,
    absolutePath: path,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  });
}

export function parseConfigText(
  text: string,
  file: string,
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    absolutePath?: string;
    sha256?: string;
  } = {},
): LoadedConfig {
  const parsed = parseConfigYaml(text);
  if (!parsed.ok) throw new ConfigError(file, parsed.problems);
  const { document, lineCounter } = parsed;
  const raw: unknown = parsed.value;
  if (raw === null || raw === undefined) {
    throw new ConfigError(file, [
      {
        path: "(top level)",
        message: "the file is empty; expected a mapping with version, server, model and cells",
      },
    ]);
  }
  const interpolated = interpolateEnvironment(raw, options.env ?? {});
  const locate = (path: readonly PropertyKey[]) =>
    locateNode(document.contents as Node | null, path, lineCounter);
  const problems: ConfigProblem[] = interpolated.problems.map((problem) => ({
    path: formatPath(problem.path),
    message: problem.message,
    ...locate(problem.path),
  }));

  problems.push(...credentialsInUrls(interpolated.value, locate));
  const result = parseCoercingTemplates(interpolated.value, interpolated.templates);
  if (!result.success) {
    problems.push(...issuesToProblems(result.error.issues, interpolated.fromEnvironment, locate));
    // Refinements do not run while fields are invalid, but a duplicate name is worth reporting at once.
    const cells = (interpolated.value as { cells?: unknown } | null)?.cells;
    if (Array.isArray(cells)) {
      for (const problem of duplicateCellNames(cells)) {
        problems.push({ path: formatPath(problem.path), message: problem.message, ...locate(problem.path) });
      }
    }
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(file, orderProblems(problems));
  return {
    config: result.data,
    path: options.absolutePath ?? file,
    sha256: options.sha256 ?? createHash("sha256").update(text).digest("hex"),
    fromEnvironment: interpolated.fromEnvironment,
    interpolation: { templates: interpolated.templates, values: interpolated.values },
  };
}

/**
 * Schema validation where a number or boolean field may be written as `"${N}"`: interpolation yields a
 * string, so a field that rejects it as the wrong type gets the string's number (or true/false) and the
 * config is checked again. A string that is no number stays an error naming the field and the template.
 */
function parseCoercingTemplates(value: unknown, templates: readonly TemplateAt[]) {
  const templated = new Set(templates.map((entry) => formatPath(entry.path)));
  let current = value;
  let result = configSchema.safeParse(current, { reportInput: true });
  // Each round fixes every field the previous one rejected; a union can reveal a nested field once.
  for (let round = 0; round < 4 && !result.success; round++) {
    const coercions: { path: ConfigPath; value: number | boolean }[] = [];
    for (const issue of flattenIssues(result.error.issues)) {
      if (issue.code !== "invalid_type" || !templated.has(formatPath(issue.path))) continue;
      const input = (issue as { input?: unknown }).input;
      if (typeof input !== "string") continue;
      const coerced =
        issue.expected === "number"
          ? toNumber(input)
          : issue.expected === "boolean"
            ? toBoolean(input)
            : undefined;
      if (coerced !== undefined) coercions.push({ path: issue.path as ConfigPath, value: coerced });
    }
    if (coercions.length === 0) break;
    current = structuredClone(current);
    for (const coercion of coercions) setAt(current, coercion.path, coercion.value);
    result = configSchema.safeParse(current, { reportInput: true });
  }
  return result;
}

/** Issues with those inside a union's branches, every path from the top. */
function flattenIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union") {
      for (const branch of issue.errors) out.push(...flattenIssues(branch, path));
    } else out.push({ ...issue, path } as z.core.$ZodIssue);
  }
  return out;
}

function toNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed)) return undefined;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : undefined;
}

function toBoolean(text: string): boolean | undefined {
  const trimmed = text.trim();
  return trimmed === "true" ? true : trimmed === "false" ? false : undefined;
}

function setAt(root: unknown, path: ConfigPath, value: unknown): void {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return;
    node = (node as Record<string | number, unknown>)[segment];
  }
  if (node !== null && typeof node === "object" && path.length > 0)
    (node as Record<string | number, unknown>)[path[path.length - 1]!] = value;
}

/**
 * A URL with `user:password@` validates as a URL but cannot work (vLLM authenticates with a Bearer key)
 * and would put the password in every message and record: refused, without echoing the URL.
 */
function credentialsInUrls(
  value: unknown,
  locate: (path: readonly PropertyKey[]) => { line?: number; column?: number },
): ConfigProblem[] {
  const server = (value as { server?: unknown } | null)?.server;
  if (server === null || typeof server !== "object") return [];
  const problems: ConfigProblem[] = [];
  for (const key of ["base_url", "metrics_url"]) {
    const url = (server as Record<string, unknown>)[key];
    if (typeof url !== "string" || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)) continue;
    problems.push({
      path: `server.${key}`,
      message:
        "credentials in the URL (user:password@host) are not supported: they would be sent nowhere useful and shown in messages and records; remove them, put the API key in an environment variable and name it in server.api_key_env",
      ...locate(["server", key]),
    });
  }
  return problems;
}

/** By position in the file, without repeats (a refinement and a field check can say the same thing). */
function orderProblems(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems
    .filter((problem) => {
      const key = `${problem.path}\u0000${problem.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

function issuesToProblems(
  issues: readonly z.core.$ZodIssue[],
  fromEnvironment: Map<string, string>,
  locate: (path: readonly PropertyKey[]) => { line?: number; column?: number },
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    // A union reports each branch's failure; the user needs the branch closest to what they wrote, i.e.
    // one whose errors are not simply "this is the wrong type of value".
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const plausible = issue.errors.filter(
        (branch) => !branch.every((inner) => inner.path.length === 0 && inner.code === "invalid_type"),
      );
      if (plausible.length > 0) {
        const best = plausible.reduce((a, b) => (a.length <= b.length ? a : b));
        problems.push(
          ...issuesToProblems(
            best.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as z.core.$ZodIssue),
            fromEnvironment,
            locate,
          ),
        );
        continue;
      }
    }
    const path = formatPath(issue.path);
    let message = issue.message;
    const template = fromEnvironment.get(path);
    if (template !== undefined) {
      // The value may be a secret: replace any echo of it with the template that produced it.
      message = message.replace(/, got .*$/, `, got the value of ${template} (not shown)`);
    }
    if (issue.code === "invalid_value" && !/^expected /.test(message)) {
      const got =
        template !== undefined
          ? `the value of ${template} (not shown)`
          : describeValue((issue as { input?: unknown }).input);
      message = `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}, got ${got}`;
    }
    if (issue.code === "unrecognized_keys" && message.startsWith("Unrecognized key")) {
      const rest = issue.keys.length - maxListedKeys;
      message = `unknown key${issue.keys.length === 1 ? "" : "s"} ${issue.keys
        .slice(0, maxListedKeys)
        .map((key) => JSON.stringify(key))
        .join(", ")}${rest > 0 ? ` and ${rest} more (only the first ${maxListedKeys} are listed)` : ""}`;
    }
    if (issue.code === "invalid_type" && !/^expected /.test(message)) {
      const got =
        template !== undefined
          ? `the value of ${template} (not shown)`
          : describeValue((issue as { input?: unknown }).input);
      message = `expected ${issue.expected}, got ${got}`;
    }
    if (template !== undefined && issue.code === "invalid_type" && issue.expected === "number")
      message += ", which is not a number";
    problems.push({ path, message, ...locate(issue.path) });
  }
  return problems;
}

/** Each mapping's pairs by key, built once: locating every problem stays linear in the problems. */
const pairIndexes = new WeakMap<object, Map<unknown, { key: unknown; value: unknown }>>();
function pairIndex(map: { items: { key: unknown; value: unknown }[] }) {
  let index = pairIndexes.get(map);
  if (!index) {
    index = new Map();
    for (const item of map.items) {
      if (isScalar(item.key) && !index.has(item.key.value)) index.set(item.key.value, item);
    }
    pairIndexes.set(map, index);
  }
  return index;
}

function locateNode(
  root: Node | null,
  path: readonly PropertyKey[],
  lineCounter: LineCounter,
): { line?: number; column?: number } {
  let node: unknown = root;
  let lastFound: unknown = root;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = pairIndex(node).get(segment);
      node = pair ? (pair.value ?? pair.key) : undefined;
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
    } else node = undefined;
    if (node === undefined) break;
    lastFound = node;
  }
  const range = (lastFound as { range?: [number, number, number] } | undefined)?.range;
  if (!range) return {};
  const position = lineCounter.linePos(range[0]);
  return { line: position.line, column: position.col };
}
