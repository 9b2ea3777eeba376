import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { FileDatasetConfig } from "../config/schema.js";
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

export interface DatasetFile {
  path: string;
  sha256: string;
  entries: DatasetEntry[];
  skipped: number;
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
  const text = bytes.toString("utf8");
  if (options.kind === "tasks_jsonl")
    return { path, sha256, entries: parseTaskLines(text, path), skipped: 0 };
  const raw = options.kind === "sharegpt" ? parseJsonArray(text, path) : parseJsonLines(text, path);
  const entries: DatasetEntry[] = [];
  let skipped = 0;
  for (const item of raw) {
    const entry = toEntry(item);
    if (entry) entries.push(entry);
    else skipped++;
  }
  if (entries.length === 0) {
    throw new InputError(
      `${options.field}.path: dataset ${path} has no usable entries (expected "conversations" with a human turn, "prompt" or "messages")`,
    );
  }
  return { path, sha256, entries, skipped };
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
