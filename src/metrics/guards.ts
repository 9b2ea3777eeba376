import { z } from "zod";
import type { GuardShareField } from "../config/metric-names.js";
import type { RequestRecord } from "../runner/request-schema.js";

/**
 * The guard counts of one run (run.json `guards`): what the outputs were, beside how fast they came. A
 * faster candidate that truncates, stops answering or runs on to max_tokens is not an improvement
 * (docs/quality.md), and these counts need no extra request: they come from the measured requests.
 *
 * - `finish`: the finish reasons of the completed requests, as the server sent them (vLLM: stop, length,
 *   abort; anything else is `other`).
 * - `zeroOutput`: requests that produced no output token (a stream without any choices chunk, or usage
 *   saying 0 completion tokens).
 * - `usageMismatch`: requests whose usage disagreed with the chunks actually received, or was not a
 *   count (runner/request-record.ts `checkUsage`; `exceeds_max_tokens` is not a mismatch of usage).
 * - `outputTokens`: output tokens per completed request (count, mean, population sd), and
 *   `outputToMaxTokens` their mean share of the request's max_tokens.
 */
export const runGuardsSchema = z.object({
  ignoreEos: z
    .boolean()
    .nullable()
    .describe("Whether the requests asked for ignore_eos (output lengths then say little); null if unknown."),
  requests: z.number().int().nonnegative().describe("Measured requests (the denominator of every share)."),
  finish: z.object({
    stop: z.number().int().nonnegative(),
    length: z.number().int().nonnegative(),
    abort: z.number().int().nonnegative(),
    other: z.number().int().nonnegative(),
  }),
  zeroOutput: z.number().int().nonnegative(),
  usageMismatch: z.number().int().nonnegative(),
  outputTokens: z.object({
    count: z.number().int().nonnegative(),
    mean: z.number().nonnegative().nullable(),
    std: z.number().nonnegative().nullable(),
  }),
  outputToMaxTokens: z.number().nonnegative().nullable(),
});

export type RunGuards = z.output<typeof runGuardsSchema>;

/**
 * The outputs of a greedy-output cell's run (run.json `outputs`), one per measured request in index order:
 * the same seeded workload sends the same prompt at the same index on both sides.
 */
export const runOutputSchema = z.object({
  index: z.number().int().nonnegative(),
  ok: z.boolean(),
  finishReason: z.string().nullable(),
  text: z.string(),
  tokens: z.array(z.string()).nullable(),
  logprobs: z.array(z.number().nullable()).nullable(),
  /** A task cell's score of this answer. */
  task: z.object({ reference: z.string(), correct: z.boolean(), error: z.string().optional() }).optional(),
});
export type RunOutput = z.output<typeof runOutputSchema>;

/** The kept outputs of these records, in index order (pure); empty when none kept any. */
export function collectOutputs(records: readonly RequestRecord[]): RunOutput[] {
  return records
    .filter((record) => record.output !== undefined)
    .sort((a, b) => a.index - b.index)
    .map((record) => ({
      index: record.index,
      ok: record.ok,
      finishReason: record.finishReason,
      text: record.output!.text,
      tokens: record.output!.tokens,
      logprobs: record.output!.logprobs,
      ...(record.task !== undefined ? { task: record.task } : {}),
    }));
}

/** The guard counts of these measured requests (pure). */
export function computeGuards(records: readonly RequestRecord[], ignoreEos: boolean | null): RunGuards {
  const finish = { stop: 0, length: 0, abort: 0, other: 0 };
  let zeroOutput = 0;
  let usageMismatch = 0;
  let count = 0;
  let sum = 0;
  let squares = 0;
  let ratioSum = 0;
  const lengths: number[] = [];
  for (const record of records) {
    const output = record.ok ? (record.outputTokens ?? record.chunksUs.length) : null;
    if (record.errorKind === "no_output" || output === 0) zeroOutput++;
    const kind = record.usageIssue?.kind;
    if (kind === "invalid_usage" || kind === "usage_exceeds_chunks" || kind === "usage_below_chunks")
      usageMismatch++;
    if (!record.ok || record.chunksUs.length === 0 || output === null) continue;
    const reason = record.finishReason;
    if (reason === "stop" || reason === "length" || reason === "abort") finish[reason]++;
    else finish.other++;
    count++;
    sum += output;
    lengths.push(output);
    if (record.maxTokens > 0) ratioSum += output / record.maxTokens;
  }
  const mean = count > 0 ? sum / count : null;
  if (mean !== null) for (const length of lengths) squares += (length - mean) ** 2;
  return {
    ignoreEos,
    requests: records.length,
    finish,
    zeroOutput,
    usageMismatch,
    outputTokens: { count, mean, std: mean === null ? null : Math.sqrt(squares / count) },
    outputToMaxTokens: count > 0 ? ratioSum / count : null,
  };
}

/** One guard share of a run: the count and its denominator (all measured requests). */
export function guardShareCount(guards: RunGuards, field: GuardShareField): number {
  switch (field) {
    case "finish_length":
      return guards.finish.length;
    case "finish_abort":
      return guards.finish.abort;
    case "zero_output":
      return guards.zeroOutput;
    case "usage_mismatch":
      return guards.usageMismatch;
  }
}
