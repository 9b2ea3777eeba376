import { z } from "zod";
import { strictObject } from "../fields.js";
import type { DatasetKindModule } from "./kind.js";
import {
  type ColumnFilter,
  describeTraceSelection,
  filterValues,
  type TraceLayout,
  traceEstimates,
  traceFields,
  traceSessionShape,
} from "./trace-fields.js";

/**
 * BurstGPT as HPMLL/BurstGPT publishes it (its README's schema): CSV with `Timestamp` (seconds from
 * midnight of the first day), `Model` (`ChatGPT`, `GPT-4`), `Request tokens`, `Response tokens`,
 * `Total tokens` and `Log Type` (`Conversation log`, `API log`). Rows whose `Response tokens` is 0 are the
 * trace's failed requests: they are skipped and counted. `models` and `log_types` keep the rows of those
 * models and log types.
 */
const burstgptTraceDataset = strictObject({
  type: z.literal("burstgpt_trace"),
  ...traceFields("a BurstGPT trace (CSV)"),
  models: filterValues("model name")
    .optional()
    .describe("Replay only the rows of these models (the `Model` column: ChatGPT, GPT-4)."),
  log_types: filterValues("log type")
    .optional()
    .describe("Replay only the rows of these log types (the `Log Type` column: Conversation log, API log)."),
});

type BurstgptTraceDataset = z.output<typeof burstgptTraceDataset>;

function burstgptFilters(dataset: BurstgptTraceDataset): ColumnFilter[] {
  return [
    ...(dataset.models ? [{ column: "Model", values: dataset.models, field: "models" }] : []),
    ...(dataset.log_types ? [{ column: "Log Type", values: dataset.log_types, field: "log_types" }] : []),
  ];
}

function burstgptLayout(dataset: BurstgptTraceDataset): TraceLayout {
  return {
    format: "csv",
    name: "BurstGPT trace",
    arrival: { column: "Timestamp", unit: "s" },
    inputTokens: "Request tokens",
    outputTokens: "Response tokens",
    session: null,
    hashIds: null,
    filters: burstgptFilters(dataset),
  };
}

export const burstgptTraceKind = {
  schema: burstgptTraceDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  trace: burstgptLayout,
  describe: (dataset) =>
    `BurstGPT trace ${dataset.path} (${describeTraceSelection(
      dataset,
      burstgptFilters(dataset).map((filter) => filter.values.join(" or ")),
    )})`,
  sharing: () => ({
    kind: "unknown",
    why: "a trace's requests are its rows as given (their own lengths and prefix blocks), which the client does not count",
  }),
  sessionShape: (dataset, replay) => traceSessionShape(burstgptLayout(dataset), replay),
  ...traceEstimates,
} as const satisfies DatasetKindModule<typeof burstgptTraceDataset>;
