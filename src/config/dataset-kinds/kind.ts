import type { z } from "zod";

/**
 * One dataset kind as the config layer knows it, declared in one module of this folder: its schema branch
 * (a strict object whose `type` is a literal), its traits and its `validate` line. The registry
 * (`datasetKindModules` in ../dataset-kinds.ts) lists the modules; how its requests are made is its entry
 * in workload/workload.ts (and, for a file, in workload/dataset-file.ts), which the compiler demands.
 */
export interface DatasetKindModule<Schema extends z.ZodType<{ type: string }>> {
  readonly schema: Schema;
  /**
   * It reads a file (`path`, optional `sha256`): the runner reads it once per cell (workload/dataset-file.ts)
   * and skips the token-length calibration for it (its prompts are the file's).
   */
  readonly fileBacked: boolean;
  /**
   * A session dataset (docs/workloads.md): the load's unit is a session, not a request. `size.requests`,
   * `warmup.requests`, a rate and a concurrency count sessions; each session sends its turns one after the
   * other, each with the conversation so far.
   */
  readonly sessions: boolean;
  /** Its answers are scored (the task-accuracy check): its cells are sent greedy. */
  readonly scoresAnswers: boolean;
  /** The dataset's part of a cell's `validate` line (given the template view: it is printed). */
  describe(dataset: z.output<Schema>): string;
  /**
   * What its measured requests share with each other by design: the prefix-cache hits a `prefix: fresh`
   * run may have (metrics/cache-check.ts); a run that hits more measured an earlier run's cache.
   */
  sharing(dataset: z.output<Schema>): DesignedSharing;
}

/**
 * Prefix sharing by design, per request of a run: `none` (independent prompts); `groups`, the requests of
 * a prefix group (the record's `prefixGroup`) after the group's first share `tokens`; `repeats`, request
 * i asks request i − `every`'s prompt again; `conversation`, a session's request carries its
 * conversation so far (the previous request's prompt and answer), its first turn `firstTurnTokens` that
 * sessions share (a common system prompt); `unknown`, shared in a way the client does not know (a trace's
 * hash ids, a file's prompts), said in `why`: no check then.
 */
export type DesignedSharing =
  | { kind: "none" }
  | { kind: "groups"; tokens: number }
  | { kind: "repeats"; every: number }
  | { kind: "conversation"; firstTurnTokens: number }
  | { kind: "unknown"; why: string };
