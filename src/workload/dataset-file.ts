import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { configLimits, type FileDatasetConfig } from "../config/schema.js";
import { InputError } from "../util/errors.js";
import { ScorerError, scoreAnswer } from "./task-score.js";
import type { Task } from "./tasks.js";

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

/** A session of a sharegpt_sessions or mooncake_trace file (docs/workloads.md). */
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
}

/**
 * Reads a ShareGPT JSON array or a JSONL file. Paths are relative to the config's directory. The checksum
 * is of the bytes read; a configured sha256 that differs is an input error, so a silently changed dataset
 * is never compared against an old baseline.
 */
export async function readDatasetFile(options: {
  kind: FileDatasetConfig["type"];
  path: string;
  baseDir: string;
  expectedSha256?: string;
  field: string;
}): Promise<DatasetFile> {
  const path = isAbsolute(options.path) ? options.path : resolve(options.baseDir, options.path);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new InputError(
      `${options.field}.path: cannot read dataset ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (options.expectedSha256 && options.expectedSha256 !== sha256) {
    throw new InputError(
      `${options.field}.sha256: dataset ${path} has sha256 ${sha256}, expected ${options.expectedSha256} (the file changed)`,
    );
  }
  return { path, sha256, ...fileKinds[options.kind](bytes.toString("utf8"), path, options.field) };
}

/** A file's content, by how its kind reads it. */
type FileContent = Omit<DatasetFile, "path" | "sha256">;

/**
 * How each file-backed dataset kind (the `fileBacked` trait, config/dataset-kinds/) reads its file: keyed
 * by those kinds, so a new one fails to compile until it says how its file is read.
 */
const fileKinds: {
  readonly [K in FileDatasetConfig["type"]]: (text: string, path: string, field: string) => FileContent;
} = {
  sharegpt: (text, path, field) => promptEntries(parseJsonArray(text, path), path, field),
  jsonl: (text, path, field) => promptEntries(parseJsonLines(text, path), path, field),
  tasks_jsonl: (text, path) => ({ entries: parseTaskLines(text, path), skipped: 0 }),
  sharegpt_sessions: (text, path, field) => {
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
  mooncake_trace: (text, path) => ({ entries: [], skipped: 0, sessions: parseTraceLines(text, path) }),
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

/**
 * A Mooncake-style trace: one request a line, `timestamp` (ms), `input_length`, `output_length` and
 * `hash_ids`; lines sharing a `session_id` are one session's turns in the file's order. Every line is
 * checked before anything is measured: a missing or wrong field is an input error naming the line.
 */
function parseTraceLines(text: string, path: string): FileSession[] {
  const bySession = new Map<string, FileSession>();
  const sessions: FileSession[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `${path}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${where}: not valid JSON (${(error as Error).message})`);
    }
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new InputError(
        `${where}: expected a JSON object (timestamp, input_length, output_length, hash_ids)`,
      );
    const record = value as Record<string, unknown>;
    const timestamp = record.timestamp;
    if (typeof timestamp !== "number" || !Number.isFinite(timestamp) || timestamp < 0)
      throw new InputError(
        `${where}.timestamp: expected milliseconds >= 0, got ${JSON.stringify(timestamp ?? null)}`,
      );
    const input = positiveInteger(record.input_length);
    if (input === null || input > configLimits.tokens)
      throw new InputError(
        `${where}.input_length: expected a whole number from 1 to ${configLimits.tokens} (the limit on token counts; see docs/config-reference.md#limits), got ${JSON.stringify(record.input_length ?? null)}`,
      );
    const output = positiveInteger(record.output_length);
    if (output === null || output > configLimits.tokens)
      throw new InputError(
        `${where}.output_length: expected a whole number from 1 to ${configLimits.tokens} (the limit on token counts; see docs/config-reference.md#limits), got ${JSON.stringify(record.output_length ?? null)}`,
      );
    const hashIds = record.hash_ids ?? [];
    if (!Array.isArray(hashIds) || !hashIds.every((id) => Number.isSafeInteger(id) && (id as number) >= 0))
      throw new InputError(`${where}.hash_ids: expected a list of whole numbers >= 0`);
    const turn: FileSessionTurn = {
      content: "",
      answer: null,
      maxTokens: output,
      timestampMs: timestamp,
      inputTokens: input,
      hashIds: hashIds as number[],
    };
    const id = record.session_id;
    if (id !== undefined && typeof id !== "string" && typeof id !== "number")
      throw new InputError(`${where}.session_id: expected a string or a number, got ${JSON.stringify(id)}`);
    const known = id === undefined ? undefined : bySession.get(String(id));
    if (known) {
      if (known.turns.length >= configLimits.sessionTurns)
        throw new InputError(
          `${where}.session_id: session ${JSON.stringify(id)} has more than ${configLimits.sessionTurns} turns (the limit on turns per session; see docs/config-reference.md#limits)`,
        );
      const previous = known.turns.at(-1)!.timestampMs!;
      if (timestamp < previous)
        throw new InputError(
          `${where}.timestamp: expected the turns of session ${JSON.stringify(id)} in time order, got ${timestamp} after ${previous}`,
        );
      known.turns.push(turn);
      return;
    }
    const session: FileSession = { system: null, turns: [turn] };
    sessions.push(session);
    if (id !== undefined) bySession.set(String(id), session);
  });
  if (sessions.length === 0) throw new InputError(`${path}: no requests (expected one JSON object a line)`);
  // Sessions start in the order of their first request (stable for equal timestamps).
  return sessions
    .map((session, order) => ({ session, order }))
    .sort((a, b) => a.session.turns[0]!.timestampMs! - b.session.turns[0]!.timestampMs! || a.order - b.order)
    .map(({ session }) => session);
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
