import type { CellConfig } from "../config/schema.js";
import type { ChatMessage, ToolDefinition } from "./dataset-file.js";
import type { Phase } from "./phase.js";
import type { SessionSource } from "./sessions.js";
import type { Task } from "./tasks.js";
import type { TokenModel } from "./token-model.js";

/**
 * What a workload is, apart from how one is made (workload.ts, from the dataset kinds' modules in
 * dataset-kinds/, which return these): its own module so those modules and workload.ts do not import
 * each other.
 */

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
