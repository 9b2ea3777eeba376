import { resolve } from "node:path";

/** The trace fixtures (test/fixtures/traces/README.md cites each format's source). */
export const traceFixtures = resolve(import.meta.dirname, "../fixtures/traces");

/** `mapped.csv`'s columns, as a `type: trace` dataset maps them. */
export const mappedColumns = {
  arrival: "arrival_ms",
  arrival_unit: "ms",
  input_tokens: "prompt_len",
  output_tokens: "completion_len",
  session: "conversation",
  hash_ids: "prefix_blocks",
  model: "served_model",
};
