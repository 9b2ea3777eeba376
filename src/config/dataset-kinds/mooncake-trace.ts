import { z } from "zod";
import { strictObject } from "../fields.js";
import type { DatasetKindModule } from "./kind.js";
import {
  describeTraceSelection,
  type TraceLayout,
  traceEstimates,
  traceFields,
  traceSessionShape,
} from "./trace-fields.js";

/**
 * A Mooncake-style request trace (docs/workloads.md, the format of kvcache-ai/Mooncake's
 * FAST25-release/traces): JSON Lines of `timestamp` (ms), `input_length`, `output_length` and, optionally,
 * `hash_ids` (one id per block of `block_tokens` prompt tokens; equal ids are equal text, so the trace's
 * prefix sharing reaches the server's cache). Lines with the same `session_id` are the turns of one
 * session; lines without one are sessions of a single turn.
 */
const mooncakeTraceDataset = strictObject({
  type: z.literal("mooncake_trace"),
  ...traceFields("a Mooncake-style JSONL trace"),
});

const mooncakeLayout: TraceLayout = {
  format: "jsonl",
  name: "Mooncake trace",
  arrival: { column: "timestamp", unit: "ms" },
  inputTokens: "input_length",
  outputTokens: "output_length",
  session: "session_id",
  hashIds: "hash_ids",
  filters: [],
};

export const mooncakeTraceKind = {
  schema: mooncakeTraceDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  trace: () => mooncakeLayout,
  describe: (dataset) =>
    `Mooncake trace ${dataset.path} (blocks of ${dataset.block_tokens}, ${describeTraceSelection(dataset)})`,
  sharing: () => ({
    kind: "unknown",
    why: "a trace's requests share prefix blocks by design (its hash_ids), which the client does not count",
  }),
  sessionShape: (_dataset, replay) => traceSessionShape(mooncakeLayout, replay),
  ...traceEstimates,
} as const satisfies DatasetKindModule<typeof mooncakeTraceDataset>;
