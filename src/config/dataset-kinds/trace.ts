import { z } from "zod";
import { type KindProblem, nonEmptyString, strictObject } from "../fields.js";
import type { DatasetKindModule } from "./kind.js";
import {
  describeTraceSelection,
  filterValues,
  type TraceLayout,
  timestampUnits,
  traceEstimates,
  traceFields,
  traceSessionShape,
} from "./trace-fields.js";

const column = (what: string) =>
  nonEmptyString(`the name of the column (CSV header or JSON key) of ${what}`).describe(
    `The column (CSV header or JSON key) of ${what}.`,
  );

/**
 * Which column holds what (a CSV header, or a key of each JSON Lines object): the arrival time and its unit,
 * the input and output lengths, and optionally the session, the prefix-hash ids and the model.
 */
const traceColumnsSchema = strictObject({
  arrival: column("the arrival time"),
  arrival_unit: z
    .enum(timestampUnits, {
      error: (issue) =>
        `expected one of ${timestampUnits.map((unit) => `"${unit}"`).join(", ")}, got ${JSON.stringify(issue.input ?? null)}`,
    })
    .describe(
      "How the arrival column counts time: s, ms or us (numbers on any origin), or datetime (a date and time such as 2023-11-16 18:15:46.68 or ISO 8601; UTC unless it names a zone).",
    ),
  input_tokens: column("the prompt length in tokens"),
  output_tokens: column("the answer length in tokens"),
  session: column("the session id (rows sharing it are one session's turns, in time order)").optional(),
  hash_ids: column(
    "the prefix-hash ids (a JSON list, or whole numbers separated by spaces, ';' or '|')",
  ).optional(),
  model: column("the model name (for `models`)").optional(),
});

/**
 * Any CSV or JSON Lines trace, through a mapping of its columns (docs/workloads.md, "Traces"): what
 * inference-perf, GuideLLM and vLLM's custom datasets read, in whichever columns a trace has them.
 */
const traceDataset = strictObject({
  type: z.literal("trace"),
  ...traceFields("a CSV or JSON Lines trace"),
  format: z
    .enum(["csv", "jsonl"], {
      error: (issue) => `expected "csv" or "jsonl", got ${JSON.stringify(issue.input ?? null)}`,
    })
    .optional()
    .describe("The file's format; by default from its extension (.csv, or .jsonl / .json)."),
  columns: traceColumnsSchema.describe(
    "Which column holds what: the arrival time and its unit, the input and output lengths, optionally the session, the prefix-hash ids and the model.",
  ),
  models: filterValues("model name")
    .optional()
    .describe("Replay only the rows whose `columns.model` value is one of these."),
});

type TraceDataset = z.output<typeof traceDataset>;

/** The format of a mapped trace: as configured, else from the file's extension; null when neither says. */
function mappedTraceFormat(dataset: Pick<TraceDataset, "format" | "path">): "csv" | "jsonl" | null {
  if (dataset.format) return dataset.format;
  const extension = /\.([A-Za-z]+)$/.exec(dataset.path)?.[1]?.toLowerCase();
  return extension === "csv" ? "csv" : extension === "jsonl" || extension === "json" ? "jsonl" : null;
}

function mappedLayout(dataset: TraceDataset): TraceLayout {
  return {
    // A path without a known extension and no `format` is a config problem (`problems` below).
    format: mappedTraceFormat(dataset) ?? "csv",
    name: "trace",
    arrival: { column: dataset.columns.arrival, unit: dataset.columns.arrival_unit },
    inputTokens: dataset.columns.input_tokens,
    outputTokens: dataset.columns.output_tokens,
    session: dataset.columns.session ?? null,
    hashIds: dataset.columns.hash_ids ?? null,
    filters:
      dataset.models && dataset.columns.model
        ? [{ column: dataset.columns.model, values: dataset.models, field: "models" }]
        : [],
  };
}

/** A mapped trace's format is known (configured, or the path's extension) and its model filter's column named. */
function mappedTraceProblems(dataset: TraceDataset): KindProblem[] {
  const problems: KindProblem[] = [];
  if (mappedTraceFormat(dataset) === null)
    problems.push({
      path: ["format"],
      message: `expected csv or jsonl (the path ${JSON.stringify(dataset.path)} does not end in .csv, .jsonl or .json), got nothing`,
    });
  if (dataset.models !== undefined && dataset.columns.model === undefined)
    problems.push({
      path: ["columns", "model"],
      message: "expected the column of the model name (dataset.models filters on it), got nothing",
    });
  return problems;
}

export const traceKind = {
  schema: traceDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  trace: mappedLayout,
  describe: (dataset) =>
    `trace ${dataset.path} (${mappedTraceFormat(dataset) ?? "csv"}, ${describeTraceSelection(
      dataset,
      dataset.models ? [dataset.models.join(" or ")] : [],
    )})`,
  sharing: () => ({
    kind: "unknown",
    why: "a trace's requests are its rows as given (their own lengths and prefix blocks), which the client does not count",
  }),
  sessionShape: (dataset, replay) => traceSessionShape(mappedLayout(dataset), replay),
  ...traceEstimates,
  problems: mappedTraceProblems,
} as const satisfies DatasetKindModule<typeof traceDataset>;
