import type { DatasetConfig, DatasetType } from "../config/dataset-kinds.js";
import type { CellConfig } from "../config/schema.js";
import type { DatasetFile } from "./dataset-file.js";
import type { KindContext, KindWorkload, Stream } from "./dataset-kinds/context.js";
import { conversationFileWorkload } from "./dataset-kinds/conversation-file.js";
import { fileWorkload } from "./dataset-kinds/prompt-file.js";
import { generatedSessionsWorkload } from "./dataset-kinds/sessions.js";
import { sharedPrefixWorkload } from "./dataset-kinds/shared-prefix.js";
import { syntheticWorkload } from "./dataset-kinds/synthetic.js";
import { tasksWorkload } from "./dataset-kinds/tasks.js";
import { tasksJsonlWorkload } from "./dataset-kinds/tasks-jsonl.js";
import { traceWorkload } from "./dataset-kinds/trace.js";
import type { Phase } from "./phase.js";
import { defaultTokenModel, type TokenModel } from "./token-model.js";

import type { Workload, WorkloadInfo, WorkloadRequest } from "./workload-types.js";

export type { Workload, WorkloadInfo, WorkloadRequest };

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
  sessions: generatedSessionsWorkload,
  sharegpt_sessions: conversationFileWorkload,
  mooncake_trace: traceWorkload,
  azure_trace: traceWorkload,
  burstgpt_trace: traceWorkload,
  trace: traceWorkload,
  synthetic: syntheticWorkload,
  shared_prefix: sharedPrefixWorkload,
  long_document: sharedPrefixWorkload,
  tasks: tasksWorkload,
  tasks_jsonl: tasksJsonlWorkload,
  sharegpt: fileWorkload,
  jsonl: fileWorkload,
};
