import type { z } from "zod";
import { azureTraceKind } from "./dataset-kinds/azure-trace.js";
import { burstgptTraceKind } from "./dataset-kinds/burstgpt-trace.js";
import { jsonlKind } from "./dataset-kinds/jsonl.js";
import type { DatasetKindModule, DesignedSharing, SessionShape } from "./dataset-kinds/kind.js";
import { longDocumentKind } from "./dataset-kinds/long-document.js";
import { mooncakeTraceKind } from "./dataset-kinds/mooncake-trace.js";
import { sessionsKind } from "./dataset-kinds/sessions.js";
import { sharedPrefixKind } from "./dataset-kinds/shared-prefix.js";
import { sharegptKind } from "./dataset-kinds/sharegpt.js";
import { sharegptSessionsKind } from "./dataset-kinds/sharegpt-sessions.js";
import { syntheticKind } from "./dataset-kinds/synthetic.js";
import { tasksKind } from "./dataset-kinds/tasks.js";
import { tasksJsonlKind } from "./dataset-kinds/tasks-jsonl.js";
import { traceKind } from "./dataset-kinds/trace.js";
import type { TraceLayout, TraceReplay } from "./dataset-kinds/trace-fields.js";
import { choice, type KindProblem } from "./fields.js";

/**
 * The dataset kinds, one module each in dataset-kinds/ (its schema branch, traits, `validate` line, and
 * what validate's estimates and checks take of it), registered here once. `datasetSchema` and the lists of kinds with a trait (file-backed, sessions, scored)
 * are derived from this list; how a kind's requests are made is its entry in workload/, keyed by these
 * kinds, so the compiler demands one for a new kind.
 */
const datasetKindModules = [
  syntheticKind,
  sharegptKind,
  jsonlKind,
  sharedPrefixKind,
  longDocumentKind,
  tasksKind,
  tasksJsonlKind,
  sessionsKind,
  sharegptSessionsKind,
  mooncakeTraceKind,
  azureTraceKind,
  burstgptTraceKind,
  traceKind,
] as const;

type Modules = typeof datasetKindModules;
type SchemasOf<T extends readonly { schema: unknown }[]> = { -readonly [I in keyof T]: T[I]["schema"] };
type KindOf<M> = M extends { schema: { shape: { type: { value: infer T } } } } ? T : never;

export const datasetSchema = choice(
  "type",
  datasetKindModules.map((module) => module.schema) as unknown as SchemasOf<Modules>,
);

export type DatasetConfig = z.output<typeof datasetSchema>;
export type DatasetType = DatasetConfig["type"];
export type DatasetConfigOf<T extends DatasetType> = Extract<DatasetConfig, { type: T }>;

type ModuleOf<T extends DatasetType> = Extract<Modules[number], { schema: z.ZodType<{ type: T }> }>;

/** Each kind's module by its name. */
export const datasetKinds = Object.fromEntries(
  datasetKindModules.map((module) => [module.schema.shape.type.value, module]),
) as unknown as { readonly [T in DatasetType]: ModuleOf<T> };

function moduleOf<T extends DatasetType>(
  dataset: DatasetConfigOf<T>,
): DatasetKindModule<z.ZodType<DatasetConfigOf<T>>> {
  return datasetKinds[dataset.type] as unknown as DatasetKindModule<z.ZodType<DatasetConfigOf<T>>>;
}

/** Per dataset kind: whether it reads a file (the `fileBacked` trait). */
export const datasetReadsFile = Object.fromEntries(
  datasetKindModules.map((module) => [module.schema.shape.type.value, module.fileBacked]),
) as { readonly [T in DatasetType]: ModuleOf<T>["fileBacked"] };

type FileDatasetType = KindOf<Extract<Modules[number], { fileBacked: true }>>;
export type FileDatasetConfig = Extract<DatasetConfig, { type: FileDatasetType }>;
type SessionDatasetType = KindOf<Extract<Modules[number], { sessions: true }>>;
export type SessionDatasetConfig = Extract<DatasetConfig, { type: SessionDatasetType }>;
type TraceDatasetType = KindOf<Extract<Modules[number], { trace: unknown }>>;
export type TraceDatasetConfig = Extract<DatasetConfig, { type: TraceDatasetType }>;

/** True when the dataset's prompts come from a file (the `fileBacked` trait). */
export function isFileBacked(dataset: DatasetConfig): dataset is FileDatasetConfig {
  return moduleOf(dataset).fileBacked;
}

/** True for a session dataset (the `sessions` trait: the load's unit is a session). */
export function isSessionDataset(dataset: DatasetConfig): dataset is SessionDatasetConfig {
  return moduleOf(dataset).sessions;
}

/** True for a trace (the `trace` trait): replayed on its own timestamps, each row's prompt as given. */
export function isTraceDataset(dataset: DatasetConfig): dataset is TraceDatasetConfig {
  return moduleOf(dataset).trace !== undefined;
}

/** Where a trace dataset's format keeps its columns (its kind's `trace`), for the trace pipeline. */
export function traceLayoutOf(dataset: TraceDatasetConfig): TraceLayout {
  return moduleOf(dataset).trace!(dataset);
}

/** Whether a dataset's answers are scored (the task-accuracy check): its cells are sent greedy. */
export function scoresAnswers(dataset: DatasetConfig): boolean {
  return moduleOf(dataset).scoresAnswers;
}

/** The dataset's part of a cell's `validate` line (pass the template view: it is printed). */
export function describeDataset(dataset: DatasetConfig): string {
  return moduleOf(dataset).describe(dataset);
}

export type { DesignedSharing } from "./dataset-kinds/kind.js";

/** What the dataset's requests share by design (the `sharing` of its kind; metrics/cache-check.ts). */
export function designedSharing(dataset: DatasetConfig): DesignedSharing {
  return moduleOf(dataset).sharing(dataset);
}

export type { SessionShape } from "./dataset-kinds/kind.js";

/** Mean prompt tokens of one request, for validate's estimates (the kind's `promptTokensMean`). */
export function promptTokensMean(dataset: DatasetConfig): number {
  return moduleOf(dataset).promptTokensMean(dataset);
}

/** Mean answer tokens of one request, for validate's estimates (`replay`: a trace as validate read it). */
export function outputTokensMean(dataset: DatasetConfig, replay: TraceReplay | null): number {
  return moduleOf(dataset).outputTokensMean(dataset, replay);
}

/** The longest prompt one request asks for, bounded per run; null when the kind's prompts are not. */
export function promptTokensCeiling(dataset: DatasetConfig): number | null {
  return moduleOf(dataset).promptTokensCeiling(dataset);
}

/** A session dataset's session as validate estimates it (its kind's `sessionShape`). */
export function sessionShape(dataset: SessionDatasetConfig, replay: TraceReplay | null): SessionShape {
  const module = moduleOf(dataset);
  if (!module.sessions) throw new Error(`the ${dataset.type} dataset kind has no sessions`);
  return module.sessionShape(dataset, replay);
}

/** What the dataset asks that its cell cannot give (the kind's `problems`; paths from the dataset). */
export function datasetProblems(
  dataset: DatasetConfig,
  cell: { sessionsInFlight: number | null },
): KindProblem[] {
  return moduleOf(dataset).problems?.(dataset, cell) ?? [];
}
