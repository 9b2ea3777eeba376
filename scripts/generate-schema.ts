import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { configJsonSchema } from "../src/config/json-schema.js";
import { renderConfigReference } from "../src/config/reference.js";

// Regenerates the committed JSON Schema and config reference; tests fail when either is stale.
const schemaFile = fileURLToPath(new URL("../schema/vllm-perf-gate.schema.json", import.meta.url));
const referenceFile = fileURLToPath(new URL("../docs/config-reference.md", import.meta.url));
await writeFile(schemaFile, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
await writeFile(referenceFile, renderConfigReference());
console.log(`wrote ${schemaFile}\nwrote ${referenceFile}`);
