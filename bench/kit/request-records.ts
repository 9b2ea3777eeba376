import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type RequestRecord, requestRecordSchema } from "../../src/runner/request-schema.js";

/** Every line of DIR/<cell>/run-<k>/requests.jsonl, each validated against the record schema. */
export function readRequestRecords(dir: string, cell: string, run = 0): RequestRecord[] {
  return readFileSync(join(dir, cell, `run-${run}`, "requests.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => requestRecordSchema.parse(JSON.parse(line)));
}
