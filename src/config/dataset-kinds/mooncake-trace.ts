import { z } from "zod";
import { nonEmptyString, positiveNumber, strictObject } from "../fields.js";
import { tokenCount } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/**
 * A Mooncake-style request trace (docs/workloads.md): JSON Lines of `timestamp` (ms), `input_length`,
 * `output_length` and `hash_ids` (one id per block of `block_tokens` prompt tokens; equal ids are equal
 * text, so the trace's prefix sharing reaches the server's cache). Lines with the same `session_id` are the
 * turns of one session; lines without one are sessions of a single turn.
 */
const mooncakeTraceDataset = strictObject({
  type: z.literal("mooncake_trace"),
  path: nonEmptyString("a path to a Mooncake-style JSONL trace"),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
    .optional()
    .describe("Expected checksum; the run fails when the file differs."),
  block_tokens: tokenCount().default(512).describe("Prompt tokens per hash id (Mooncake's traces use 512)."),
  time_scale: positiveNumber()
    .max(1000, "expected at most 1000 (the limit on a trace's time scale; see docs/workloads.md)")
    .default(1)
    .describe(
      "Multiplies the trace's timestamps (and the gaps between a session's turns): 1 replays it on its own clock, 0.5 twice as fast.",
    ),
});

export const mooncakeTraceKind = {
  schema: mooncakeTraceDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  describe: (dataset) =>
    `Mooncake trace ${dataset.path} (blocks of ${dataset.block_tokens}, time x${dataset.time_scale})`,
  sharing: () => ({
    kind: "unknown",
    why: "a trace's requests share prefix blocks by design (its hash_ids), which the client does not count",
  }),
} as const satisfies DatasetKindModule<typeof mooncakeTraceDataset>;
