import { z } from "zod";
import { configSchema } from "./schema.js";

/** The config's JSON Schema for editors (yaml-language-server), derived from the zod schema. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, {
    io: "input",
    unrepresentable: "any",
    target: "draft-2020-12",
  });
  return {
    ...schema,
    title: "vllm-perf-gate config",
    description:
      "The config file of vllm-perf-gate (vllm-perf-gate.yml). Generated from src/config/schema.ts; do not edit.",
  };
}
