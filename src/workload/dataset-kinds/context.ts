import type { DatasetConfigOf, DatasetType } from "../../config/dataset-kinds.js";
import type { CellConfig } from "../../config/schema.js";
import type { DatasetFile } from "../dataset-file.js";
import type { Phase } from "../phase.js";
import type { TokenModel } from "../token-model.js";
import type { Workload, WorkloadInfo, WorkloadRequest } from "../workload-types.js";

export type Stream = "warmup" | "measure";

/** What every kind's workload is made from: the cell, its seed and token model, the file, the shaping. */
export interface KindContext {
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

/** How one dataset kind makes its workload (its entry in ../workload.ts `workloadKinds`). */
export type KindWorkload<T extends DatasetType> = (
  dataset: DatasetConfigOf<T>,
  context: KindContext,
) => Workload;
