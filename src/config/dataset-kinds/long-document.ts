import { z } from "zod";
import { positiveInt, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { describeLength, lengthCeiling, lengthMean, lengthSchema, tokenCount } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/** Questions about generated long documents (a document is a prefix its questions share). */
const longDocumentDataset = strictObject({
  type: z.literal("long_document"),
  num_documents: positiveInt()
    .max(configLimits.datasetItems, atMost(configLimits.datasetItems, "generated dataset items"))
    .default(1),
  document_tokens: tokenCount(),
  question_tokens: lengthSchema,
  output_tokens: lengthSchema,
});

export const longDocumentKind = {
  schema: longDocumentDataset,
  fileBacked: false,
  sessions: false,
  scoresAnswers: false,
  describe: (dataset) =>
    `${dataset.num_documents} doc x ${dataset.document_tokens} + q ${describeLength(dataset.question_tokens)} / out ${describeLength(dataset.output_tokens)}`,
  // A document's questions after its first find the document cached.
  sharing: (dataset) => ({ kind: "groups", tokens: dataset.document_tokens }),
  promptTokensMean: (dataset) => dataset.document_tokens + lengthMean(dataset.question_tokens),
  outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
  promptTokensCeiling: (dataset) => dataset.document_tokens + lengthCeiling(dataset.question_tokens),
} as const satisfies DatasetKindModule<typeof longDocumentDataset>;
