import type { DatasetConfig, DatasetType } from "../config/dataset-kinds.js";
import type { CellConfig } from "../config/schema.js";
import type { ChatMessage, DatasetFile, ToolDefinition } from "./dataset-file.js";
import type { KindContext, KindWorkload, Stream } from "./dataset-kinds/context.js";
import { fileWorkload } from "./dataset-kinds/prompt-file.js";
import { sessionsWorkload } from "./dataset-kinds/sessions.js";
import { sharedPrefixWorkload } from "./dataset-kinds/shared-prefix.js";
import { syntheticWorkload } from "./dataset-kinds/synthetic.js";
import { tasksWorkload } from "./dataset-kinds/tasks.js";
import { tasksJsonlWorkload } from "./dataset-kinds/tasks-jsonl.js";
import type { Phase } from "./phase.js";
import type { SessionSource } from "./sessions.js";
import type { Task } from "./tasks.js";
import { defaultTokenModel, type TokenModel } from "./token-model.js";

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
