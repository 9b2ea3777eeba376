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
 * The Azure LLM inference traces as Azure/AzurePublicDataset publishes them (AzureLLMInferenceDataset2023.md
 * and 2024.md): CSV with `TIMESTAMP` (the invocation's date and time: "2023-11-16 18:15:46.6805900", or
 * with a zone, "2024-05-10 00:00:00.009930+00:00"), `ContextTokens` and `GeneratedTokens`. Every row is a
 * request of its own; the prompts' text is not published, so each prompt is seeded text of its length.
 */
const azureTraceDataset = strictObject({
  type: z.literal("azure_trace"),
  ...traceFields("an Azure LLM inference trace (CSV)"),
});

const azureLayout: TraceLayout = {
  format: "csv",
  name: "Azure LLM inference trace",
  arrival: { column: "TIMESTAMP", unit: "datetime" },
  inputTokens: "ContextTokens",
  outputTokens: "GeneratedTokens",
  session: null,
  hashIds: null,
  filters: [],
};

export const azureTraceKind = {
  schema: azureTraceDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  trace: () => azureLayout,
  describe: (dataset) => `Azure trace ${dataset.path} (${describeTraceSelection(dataset)})`,
  sharing: () => ({
    kind: "unknown",
    why: "a trace's requests are its rows as given (their own lengths and prefix blocks), which the client does not count",
  }),
  sessionShape: (_dataset, replay) => traceSessionShape(azureLayout, replay),
  ...traceEstimates,
} as const satisfies DatasetKindModule<typeof azureTraceDataset>;
