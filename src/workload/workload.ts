import type { DatasetConfig, DatasetConfigOf, DatasetType } from "../config/dataset-kinds.js";
import type { CellConfig, LengthConfig } from "../config/schema.js";
import { createRng, type Rng } from "../util/random.js";
import type { ChatMessage, DatasetEntry, DatasetFile, ToolDefinition } from "./dataset-file.js";
import { drawLength } from "./lengths.js";
import type { Phase } from "./phase.js";
import { Conversation, type SessionSource, sessionSource } from "./sessions.js";
import { builtInTask, type Task } from "./tasks.js";
import { randomWords, shuffledIndexes } from "./text.js";
import { defaultTokenModel, type TokenModel, wordsForPart, wordsForPrompt } from "./token-model.js";

/** One request of a workload, before it becomes an HTTP body. */
export interface WorkloadRequest {
  index: number;
  phase: Phase;
  prompt: string | null;
  messages: ChatMessage[] | null;
  /** Tools a chat request declares (sent as `tools`); absent for requests without tools. */
  tools?: ToolDefinition[];
  /** The prompt length asked for (synthetic workloads), null when the text comes from a file. */
  targetInputTokens: number | null;
  maxTokens: number;
  /** Shared-prefix group or document index, null otherwise. */
  prefixGroup: number | null;
  /** A task's reference and scorer (dataset type tasks): the answer is scored (docs/quality.md). */
  task?: Omit<Task, "prompt">;
}

export interface WorkloadInfo {
  type: CellConfig["dataset"]["type"];
  seed: number;
  datasetSha256: string | null;
  datasetEntries: number | null;
  tokenModel: TokenModel;
}

/**
 * A seeded workload: `request(i)` is a pure function of (cell, seed, token model, i), so request i is the
 * same prompt on every machine and in every run, whatever the run's size.
 */
export interface Workload {
  readonly info: WorkloadInfo;
  /**
   * Request i; for a session dataset, the first turn of session i on its own (the runner sends a session's
   * turns from `sessions`, each with the conversation so far).
   */
  request(index: number, phase?: Phase): WorkloadRequest;
  /** The sessions of a session dataset (docs/workloads.md), null for every other kind. */
  readonly sessions: SessionSource | null;
}

export interface WorkloadOptions {
  seed: number;
  tokenModel?: TokenModel;
  /** Required for sharegpt and jsonl datasets. */
  file?: DatasetFile;
}

/** Fallback answer length when a ShareGPT entry has neither max_tokens nor a configured output length. */
const defaultOutputTokens = 128;

export function createWorkload(cell: CellConfig, options: WorkloadOptions): Workload {
  const tokenModel = options.tokenModel ?? defaultTokenModel;
  const dataset = cell.dataset;
  const seed = options.seed;
  const chat = cell.endpoint === "chat";
  const shape = (request: Omit<WorkloadRequest, "prompt" | "messages">, text: string): WorkloadRequest =>
    chat
      ? { ...request, prompt: null, messages: [{ role: "user", content: text }] }
      : { ...request, prompt: text, messages: null };
  // Warm-up requests come from their own stream: they never share a prompt (or a cached prefix) with
  // measured requests, so warming the server does not warm the measured prompts.
  const stream = (phase: Phase): Stream => (phase === "warmup" ? "warmup" : "measure");
  const info: WorkloadInfo = {
    type: dataset.type,
    seed,
    datasetSha256: options.file?.sha256 ?? null,
    datasetEntries: options.file?.sessions?.length ?? options.file?.entries.length ?? null,
    tokenModel,
  };
  const context: KindContext = { cell, seed, tokenModel, chat, file: options.file, info, shape, stream };
  return (workloadKinds[dataset.type] as (dataset: DatasetConfig, context: KindContext) => Workload)(
    dataset,
    context,
  );
}

type Stream = "warmup" | "measure";

/** What every kind's workload is made from: the cell, its seed and token model, the file, the shaping. */
interface KindContext {
  readonly cell: CellConfig;
  readonly seed: number;
  readonly tokenModel: TokenModel;
  /** The chat endpoint: a prompt is sent as one user message. */
  readonly chat: boolean;
  /** The dataset file (file-backed kinds), read once per cell by the runner. */
  readonly file: DatasetFile | undefined;
  readonly info: WorkloadInfo;
  /** A prompt as the endpoint takes it: text, or one user message. */
  shape(request: Omit<WorkloadRequest, "prompt" | "messages">, text: string): WorkloadRequest;
  stream(phase: Phase): Stream;
}

type KindWorkload<T extends DatasetType> = (dataset: DatasetConfigOf<T>, context: KindContext) => Workload;

/**
 * How each dataset kind's requests are made, keyed by the kinds of config/dataset-kinds.ts: a new kind
 * fails to compile until it has its entry here.
 */
const workloadKinds: { readonly [T in DatasetType]: KindWorkload<T> } = {
  sessions: sessionsWorkload,
  sharegpt_sessions: sessionsWorkload,
  mooncake_trace: sessionsWorkload,
  synthetic: syntheticWorkload,
  shared_prefix: sharedPrefixWorkload,
  long_document: sharedPrefixWorkload,
  tasks: tasksWorkload,
  tasks_jsonl: tasksJsonlWorkload,
  sharegpt: fileWorkload,
  jsonl: fileWorkload,
};

function sessionsWorkload(
  dataset: DatasetConfigOf<"sessions" | "sharegpt_sessions" | "mooncake_trace">,
  { cell, seed, tokenModel, file, info }: KindContext,
): Workload {
  return sessionWorkload(info, sessionSource(cell, dataset, { seed, tokenModel, file }));
}

function syntheticWorkload(
  dataset: DatasetConfigOf<"synthetic">,
  { cell, seed, tokenModel, info, shape, stream }: KindContext,
): Workload {
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      const rng = createRng(seed, cell.name, stream(phase), index);
      const inputTokens = drawLength(dataset.input_tokens, rng);
      const maxTokens = drawLength(dataset.output_tokens, rng);
      const text = randomWords(rng, wordsForPrompt(tokenModel, inputTokens));
      return shape({ index, phase, targetInputTokens: inputTokens, maxTokens, prefixGroup: null }, text);
    },
  };
}

function sharedPrefixWorkload(
  dataset: DatasetConfigOf<"shared_prefix" | "long_document">,
  { cell, seed, tokenModel, info, shape, stream }: KindContext,
): Workload {
  const groups = dataset.type === "shared_prefix" ? dataset.num_prefixes : dataset.num_documents;
  const sharedTokens = dataset.type === "shared_prefix" ? dataset.prefix_tokens : dataset.document_tokens;
  const partLength = dataset.type === "shared_prefix" ? dataset.suffix_tokens : dataset.question_tokens;
  const sharedWords = wordsForPrompt(tokenModel, sharedTokens);
  const sharedTexts = new Map<string, string>();
  const sharedText = (phase: Phase, group: number) => {
    const key = `${stream(phase)}:${group}`;
    let text = sharedTexts.get(key);
    if (text === undefined) {
      text = randomWords(createRng(seed, cell.name, stream(phase), "shared", group), sharedWords);
      sharedTexts.set(key, text);
    }
    return text;
  };
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      // Balanced groups: every block of `groups` consecutive requests visits each group once, in a
      // seeded order, so any run size sees the prefixes equally often.
      const block = Math.floor(index / groups);
      const order = shuffledIndexes(createRng(seed, cell.name, stream(phase), "order", block), groups);
      const group = order[index % groups]!;
      const rng = createRng(seed, cell.name, stream(phase), index);
      const partTokens = drawLength(partLength, rng);
      const maxTokens = drawLength(dataset.output_tokens, rng);
      const text = `${sharedText(phase, group)} ${randomWords(rng, wordsForPart(tokenModel, partTokens))}`;
      return shape(
        { index, phase, targetInputTokens: sharedTokens + partTokens, maxTokens, prefixGroup: group },
        text,
      );
    },
  };
}

function tasksWorkload(
  dataset: DatasetConfigOf<"tasks">,
  { cell, seed, info, shape, stream }: KindContext,
): Workload {
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      // Warm-up asks other questions (its own stream), so it never warms the measured prompts.
      const taskIndex = phase === "warmup" ? dataset.count + index : index % dataset.count;
      const task = builtInTask(seed, cell.name, taskIndex, dataset.kinds);
      const rng = createRng(seed, cell.name, stream(phase), index);
      const maxTokens = drawLength(dataset.output_tokens, rng);
      return {
        ...shape({ index, phase, targetInputTokens: null, maxTokens, prefixGroup: null }, task.prompt),
        task: { reference: task.reference, scorer: task.scorer },
      };
    },
  };
}

function tasksJsonlWorkload(
  dataset: DatasetConfigOf<"tasks_jsonl">,
  { cell, seed, chat, file, info, shape, stream }: KindContext,
): Workload {
  if (!file) throw new Error(`cell ${cell.name}: the tasks file was not read before building the workload`);
  const entries = file.entries;
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      // Task i is line i (mod the lines) on both sides; warm-up asks them in a seeded order of its own.
      const line =
        phase === "warmup"
          ? shuffledIndexes(createRng(seed, cell.name, "warmup", "order"), entries.length)[
              index % entries.length
            ]!
          : index % entries.length;
      const entry = entries[line]!;
      const rng = createRng(seed, cell.name, stream(phase), index);
      const maxTokens = entry.maxTokens ?? drawLength(dataset.output_tokens, rng);
      const text = entry.prompt ?? (entry.messages ?? []).map((message) => message.content).join("\n");
      const request = {
        ...shape({ index, phase, targetInputTokens: null, maxTokens, prefixGroup: null }, text),
      };
      if (chat && entry.messages !== null) request.messages = entry.messages;
      return { ...request, ...(entry.task !== undefined ? { task: entry.task } : {}) };
    },
  };
}

function fileWorkload(
  dataset: DatasetConfigOf<"sharegpt" | "jsonl">,
  { cell, seed, chat, file, info, stream }: KindContext,
): Workload {
  if (!file)
    throw new Error(
      `cell ${cell.name}: the ${dataset.type} dataset was not read before building the workload`,
    );
  const entries = file.entries;
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      const block = Math.floor(index / entries.length);
      const order = shuffledIndexes(
        createRng(seed, cell.name, stream(phase), "order", block),
        entries.length,
      );
      const entry = entries[order[index % entries.length]!]!;
      const rng = createRng(seed, cell.name, stream(phase), index);
      const maxTokens = entryMaxTokens(entry, dataset.output_tokens, rng);
      const request = { index, phase, targetInputTokens: null, maxTokens, prefixGroup: null };
      if (chat) {
        return {
          ...request,
          prompt: null,
          messages: entry.messages ?? [{ role: "user", content: entry.prompt ?? "" }],
        };
      }
      return {
        ...request,
        prompt: entry.prompt ?? (entry.messages ?? []).map((message) => message.content).join("\n"),
        messages: null,
      };
    },
  };
}

/** A session workload: request i is session i's first turn, alone. */
function sessionWorkload(info: WorkloadInfo, sessions: SessionSource): Workload {
  return {
    info,
    sessions,
    request(index, phase = "measure") {
      const script = sessions.session(index, phase);
      const first = script.turns[0]!;
      return {
        index,
        phase,
        prompt: null,
        messages: new Conversation(script).ask(0),
        targetInputTokens:
          first.messageTokens === null ? null : (script.systemTokens ?? 0) + first.messageTokens,
        maxTokens: first.maxTokens,
        prefixGroup: script.sharedSystem ? 0 : null,
      };
    },
  };
}

function entryMaxTokens(entry: DatasetEntry, configured: LengthConfig | undefined, rng: Rng): number {
  if (configured !== undefined) return drawLength(configured, rng);
  if (entry.maxTokens !== null) return entry.maxTokens;
  // Without a tokenizer, ~4 characters per token (documented in docs/run.md); vLLM's client re-tokenizes.
  if (entry.answer !== null) return Math.max(1, Math.round(entry.answer.length / 4));
  return defaultOutputTokens;
}
