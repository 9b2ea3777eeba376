import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { configJsonSchema } from "../src/config/json-schema.js";

// Regenerates the committed JSON Schema; `.ci/run` runs it and fails when the committed file differs.
const target = fileURLToPath(new URL("../schema/vllm-perf-gate.schema.json", import.meta.url));
await writeFile(target, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
