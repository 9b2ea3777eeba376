import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { isTraceDataset, type TraceDatasetConfig, traceLayoutOf } from "../config/dataset-kinds.js";
import { configLimits, type FileDatasetConfig } from "../config/schema.js";
import { InputError } from "../util/errors.js";
import { ScorerError, scoreAnswer } from "./task-score.js";
import type { Task } from "./tasks.js";
import { readTrace, type TraceSummary } from "./trace-file.js";

/**
 * One chat message as the request carries it. An assistant turn that called tools carries them as
 * `tool_calls` (arguments the raw JSON text the server streamed); a tool result names its call by
 * `tool_call_id` (the OpenAI chat API's shapes, which vLLM's protocol.py accepts).
 */
export interface ChatMessage {
  role: string;
  content: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A tool a chat request declares (`tools` of the OpenAI chat API): a function with a JSON Schema. */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** One usable entry of a dataset file: a prompt (text or messages) and, when the file says, an answer length. */
export interface DatasetEntry {
  prompt: string | null;
  messages: ChatMessage[] | null;
  /** max_tokens from the file (JSONL), or null. */
  maxTokens: number | null;
  /** The reference answer's text (ShareGPT), used to estimate an output length when none is configured. */
  answer: string | null;
  /** A task line's reference and scorer (tasks_jsonl). */
  task?: Omit<Task, "prompt">;
}

/** One turn of a session read from a file: a conversation's human turn, or a trace's line. */
interface FileSessionTurn {
  /** The user message (a conversation), or "" for a trace line (its prompt is made from its blocks). */
  content: string;
  /** The file's reply to it (a conversation), used to estimate an answer length. */
  answer: string | null;
  maxTokens: number | null;
  /** A trace line's timestamp (ms), prompt length and prefix block ids. */
  timestampMs?: number;
  inputTokens?: number;
  hashIds?: number[];
}

/** A session of a sharegpt_sessions file or a trace (docs/workloads.md). */
export interface FileSession {
  system: string | null;
  turns: FileSessionTurn[];
}

export interface DatasetFile {
  path: string;
  sha256: string;
  entries: DatasetEntry[];
  skipped: number;
  /** The sessions of a session file kind, in the file's order (traces: by first timestamp). */
  sessions?: FileSession[];
  /** A trace's rows: read, left out, kept and replayed (workload/trace-file.ts). */
  trace?: TraceSummary;
}

/**
 * Reads a dataset file (a ShareGPT JSON array, JSONL, a trace) of a cell's dataset. Paths are relative to
 * the config's directory. The checksum is of the bytes read; a configured sha256 that differs is an input
 * error, so a silently changed dataset is never compared against an old baseline. `seed` (the cell's)
 * draws a trace's `sample`.
 */
export async function readDatasetFile(options: {
  dataset: FileDatasetConfig;
  baseDir: string;
  field: string;
  seed: number;
}): Promise<DatasetFile> {
  const { dataset, field } = options;
  const path = datasetPath(dataset, options.baseDir);
  // A trace is parsed from its bytes; the other kinds from one string, which Node holds up to a size.
  const [limit, limitName] = isTraceDataset(dataset)
    ? [configLimits.traceFileBytes, "a trace file"]
    : [configLimits.datasetFileBytes, "a dataset file"];
  let bytes: Buffer;
  try {
    const size = (await stat(path)).size;
    if (size > limit)
      throw new InputError(
        `${field}.path: dataset ${path} has ${size} bytes, more than ${limit} (the limit on ${limitName}'s size; see docs/config-reference.md#limits)`,
      );
    bytes = await readFile(path);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(
      `${field}.path: cannot read dataset ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (dataset.sha256 && dataset.sha256 !== sha256) {
    throw new InputError(
      `${field}.sha256: dataset ${path} has sha256 ${sha256}, expected ${dataset.sha256} (the file changed)`,
    );
  }
  const read = fileKinds[dataset.type] as (file: FileInput<FileDatasetConfig>) => FileContent;
  return { path, sha256, ...read({ bytes, path, field, dataset, seed: options.seed }) };
}

/** Where a dataset's file is: its path, relative to the config's directory unless absolute. */
export function datasetPath(dataset: FileDatasetConfig, baseDir: string): string {
  return isAbsolute(dataset.path) ? dataset.path : resolve(baseDir, dataset.path);
}

/** A file's content, by how its kind reads it. */
type FileContent = Omit<DatasetFile, "path" | "sha256">;

/** What a kind's reader is given: the file's bytes, where it is, its dataset and the cell's seed. */
interface FileInput<D> {
  bytes: Buffer;
  path: string;
  field: string;
  dataset: D;
  seed: number;
}

const text = (file: { bytes: Buffer }) => file.bytes.toString("utf8");

/** Every trace kind's file, through the one trace pipeline and the layout its kind declares. */
function traceFile({ bytes, path, dataset, seed }: FileInput<TraceDatasetConfig>): FileContent {
  const { sessions, summary } = readTrace(bytes, {
    path,
    layout: traceLayoutOf(dataset),
    selection: dataset,
    seed,
  });
  return {
    entries: [],
    skipped: summary.empty,
    trace: summary,
    sessions: sessions.map((session) => ({
      system: null,
      turns: session.turns.map((turn) => ({
        content: "",
        answer: null,
        maxTokens: turn.maxTokens,
        timestampMs: turn.timestampMs,
        inputTokens: turn.inputTokens,
        hashIds: turn.hashIds,
      })),
    })),
  };
}

/**
 * How each file-backed dataset kind (the `fileBacked` trait, config/dataset-kinds/) reads its file: keyed
 * by those kinds, so a new one fails to compile until it says how its file is read.
 */
const fileKinds: {
  readonly [K in FileDatasetConfig["type"]]: (
    file: FileInput<Extract<FileDatasetConfig, { type: K }>>,
  ) => FileContent;
} = {
  sharegpt: (file) => promptEntries(parseJsonArray(text(file), file.path), file.path, file.field),
  jsonl: (file) => promptEntries(parseJsonLines(text(file), file.path), file.path, file.field),
  tasks_jsonl: (file) => ({ entries: parseTaskLines(text(file), file.path), skipped: 0 }),
  mooncake_trace: traceFile,
  azure_trace: traceFile,
  burstgpt_trace: traceFile,
  trace: traceFile,
  sharegpt_sessions: ({ bytes, path, field }) => {
    const text = bytes.toString("utf8");
    const conversations = parseJsonArray(text, path);
    const sessions: FileSession[] = [];
    let skipped = 0;
    for (const item of conversations) {
      const session = toConversationSession(item);
      if (session) sessions.push(session);
      else skipped++;
    }
    if (sessions.length === 0)
      throw new InputError(
        `${field}.path: dataset ${path} has no usable conversations (expected "conversations" with a human turn)`,
      );
    return { entries: [], skipped, sessions };
  },
};

/** The prompts of a ShareGPT array or JSONL lines; the items that hold none are skipped (and counted). */
function promptEntries(raw: unknown[], path: string, field: string): FileContent {
  const entries: DatasetEntry[] = [];
  let skipped = 0;
  for (const item of raw) {
    const entry = toEntry(item);
    if (entry) entries.push(entry);
    else skipped++;
  }
  if (entries.length === 0) {
    throw new InputError(
      `${field}.path: dataset ${path} has no usable entries (expected "conversations" with a human turn, "prompt" or "messages")`,
    );
  }
  return { entries, skipped };
}

function parseJsonArray(text: string, path: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${path}: not valid JSON (${(error as Error).message}); expected a ShareGPT array`);
  }
  if (!Array.isArray(value))
    throw new InputError(`${path}: expected a JSON array of conversations, got ${typeof value}`);
  return value;
}

function parseJsonLines(text: string, path: string): unknown[] {
  const items: unknown[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      items.push(JSON.parse(line));
    } catch (error) {
      throw new InputError(`${path}:${index + 1}: not valid JSON (${(error as Error).message})`);
    }
  });
  return items;
}

function toEntry(item: unknown): DatasetEntry | null {
  if (!item || typeof item !== "object") return null;
  const record = item as Record<string, unknown>;
  const maxTokens = positiveInteger(record.max_tokens ?? record.output_tokens ?? record.output_len);
  if (typeof record.prompt === "string" && record.prompt.length > 0) {
    return { prompt: record.prompt, messages: null, maxTokens, answer: null };
  }
  if (Array.isArray(record.messages)) {
    const messages = record.messages.flatMap((message) => {
      const value = message as Record<string, unknown>;
      return typeof value?.role === "string" && typeof value.content === "string"
        ? [{ role: value.role, content: value.content }]
        : [];
    });
    if (messages.length > 0) return { prompt: null, messages, maxTokens, answer: null };
  }
  const conversation = record.conversations ?? record.conversation;
  if (Array.isArray(conversation)) {
    const turns = conversation.map((turn) => {
      const value = turn as Record<string, unknown>;
      return {
        from: String(value?.from ?? value?.role ?? ""),
        text: String(value?.value ?? value?.content ?? ""),
      };
    });
    const question = turns.findIndex((turn) => turn.from === "human" || turn.from === "user");
    if (question < 0 || turns[question]!.text.length === 0) return null;
    const reply = turns[question + 1];
    return {
      prompt: turns[question]!.text,
      messages: null,
      maxTokens,
      answer: reply && (reply.from === "gpt" || reply.from === "assistant") ? reply.text : null,
    };
  }
  return null;
}

/**
 * A ShareGPT conversation as a session: every human (user) turn is a turn, the reply after it its answer
 * (for an answer length), a leading system turn the system prompt; turns beyond the limit on turns per
 * session (configLimits.sessionTurns) are not used.
 */
function toConversationSession(item: unknown): FileSession | null {
  if (!item || typeof item !== "object") return null;
  const record = item as Record<string, unknown>;
  const conversation = record.conversations ?? record.conversation ?? record.messages;
  if (!Array.isArray(conversation)) return null;
  const parts = conversation.map((turn) => {
    const value = turn as Record<string, unknown>;
    return {
      from: String(value?.from ?? value?.role ?? ""),
      text: String(value?.value ?? value?.content ?? ""),
    };
  });
  const system = parts[0]?.from === "system" && parts[0].text.length > 0 ? parts[0].text : null;
  const turns: FileSessionTurn[] = [];
  parts.forEach((part, index) => {
    if ((part.from !== "human" && part.from !== "user") || part.text.length === 0) return;
    const reply = parts[index + 1];
    const answer = reply && (reply.from === "gpt" || reply.from === "assistant") ? reply.text : null;
    turns.push({ content: part.text, answer, maxTokens: null });
  });
  if (turns.length === 0) return null;
  return { system, turns: turns.slice(0, configLimits.sessionTurns) };
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}

const scorerKinds = ["exact", "contains", "regex", "numeric"] as const;

/**
 * A tasks_jsonl file (docs/quality.md): every non-empty line one task, checked before anything is
 * measured. A line without a prompt or a reference, with an unknown scorer, a pattern that is no regular
 * expression or a numeric reference without a number is an input error naming the file, the line and the
 * field.
 */
function parseTaskLines(text: string, path: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `${path}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${where}: not valid JSON (${(error as Error).message})`);
    }
    const entry = toEntry(value);
    if (entry === null)
      throw new InputError(`${where}: expected a task with "prompt" (a non-empty string) or "messages"`);
    const record = value as Record<string, unknown>;
    const reference =
      typeof record.reference === "string" || typeof record.reference === "number"
        ? String(record.reference)
        : null;
    if (reference === null || reference === "")
      throw new InputError(
        `${where}.reference: expected the reference answer (a string or a number), got ${JSON.stringify(record.reference ?? null)}`,
      );
    const kind = record.scorer ?? "exact";
    if (!scorerKinds.includes(kind as (typeof scorerKinds)[number]))
      throw new InputError(
        `${where}.scorer: expected one of ${scorerKinds.join(", ")}, got ${JSON.stringify(kind)}`,
      );
    const tolerance = record.tolerance ?? 0;
    if (typeof tolerance !== "number" || !(tolerance >= 0))
      throw new InputError(`${where}.tolerance: expected a number >= 0, got ${JSON.stringify(tolerance)}`);
    const scorer: Task["scorer"] =
      kind === "regex"
        ? { kind: "regex", pattern: typeof record.pattern === "string" ? record.pattern : "" }
        : kind === "numeric"
          ? { kind: "numeric", tolerance }
          : { kind: kind as "exact" | "contains" };
    try {
      // A scorer that would throw on every answer is caught here, before the run.
      scoreAnswer("", reference, scorer);
    } catch (error) {
      if (error instanceof ScorerError) throw new InputError(`${where}: ${error.message}`);
      throw error;
    }
    entries.push({ ...entry, task: { reference, scorer } });
  });
  if (entries.length === 0) throw new InputError(`${path}: no tasks (expected one JSON object a line)`);
  return entries;
}
