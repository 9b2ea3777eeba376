/** The phase a request is drawn for: the warm-up's requests come from a stream of their own. */
export type Phase = "measure" | "warmup";
