import { maxListedKeys } from "./fields.js";
import { configJsonSchema } from "./json-schema.js";
import { maxListedProblems, maxProblemChars } from "./load.js";
import { yamlLimits } from "./parse-yaml.js";
import { configLimits } from "./schema.js";

/**
 * The config reference in markdown, generated from the JSON Schema (itself generated from the zod schema),
 * so the documentation cannot drift from what `validate` accepts. A test compares it with the committed
 * docs/config-reference.md.
 */
interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  items?: JsonSchemaNode;
  oneOf?: JsonSchemaNode[];
  anyOf?: JsonSchemaNode[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  additionalProperties?: JsonSchemaNode | boolean;
  propertyNames?: JsonSchemaNode;
}

function typeText(node: JsonSchemaNode): string {
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum) return node.enum.map((value) => `\`${String(value)}\``).join(" | ");
  const variants = node.oneOf ?? node.anyOf;
  if (variants) {
    const discriminators = variants.map(
      (variant) =>
        Object.entries(variant.properties ?? {}).find(([, property]) => property.const !== undefined)?.[0],
    );
    const key = discriminators[0];
    if (key !== undefined && discriminators.every((candidate) => candidate === key))
      return `mapping chosen by \`${key}\``;
    return [...new Set(variants.map(typeText))].join(" or ");
  }
  if (node.type === "array") return `list of ${node.items ? typeText(node.items) : "values"}`;
  if (node.type === "object" && !node.properties) {
    const values =
      typeof node.additionalProperties === "object" ? typeText(node.additionalProperties) : "values";
    const keys = node.propertyNames?.enum
      ? ` (keys: ${node.propertyNames.enum.map((key) => `\`${String(key)}\``).join(", ")})`
      : "";
    return `mapping of ${values}${keys}`;
  }
  if (node.type === "object") return "mapping";
  const base = Array.isArray(node.type) ? node.type.join(" | ") : (node.type ?? "any");
  const bounds: string[] = [];
  if (node.exclusiveMinimum !== undefined) bounds.push(`> ${node.exclusiveMinimum}`);
  if (node.minimum !== undefined && node.minimum > -Number.MAX_SAFE_INTEGER)
    bounds.push(`>= ${node.minimum}`);
  if (node.exclusiveMaximum !== undefined) bounds.push(`< ${node.exclusiveMaximum}`);
  if (node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`<= ${node.maximum}`);
  return bounds.length > 0 ? `${base} ${bounds.join(", ")}` : base;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function rows(node: JsonSchemaNode, prefix: string, out: string[]): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = `${prefix}${key}`;
    const required = node.required?.includes(key) ?? false;
    const defaultText =
      child.default !== undefined ? `\`${JSON.stringify(child.default)}\`` : required ? "required" : "";
    out.push(
      `| \`${path}\` | ${escapeCell(typeText(child))} | ${escapeCell(defaultText)} | ${escapeCell(child.description ?? "")} |`,
    );
    const variants = child.oneOf ?? child.anyOf;
    if (child.properties) rows(child, `${path}.`, out);
    else if (child.type === "array" && child.items?.properties) rows(child.items, `${path}[].`, out);
    else if (child.type === "array" && (child.items?.oneOf ?? child.items?.anyOf))
      variantRows(child.items!, `${path}[]`, out);
    else if (variants) variantRows(child, path, out);
  }
}

function variantRows(node: JsonSchemaNode, path: string, out: string[]): void {
  for (const variant of node.oneOf ?? node.anyOf ?? []) {
    if (!variant.properties) continue;
    const discriminator = Object.entries(variant.properties).find(
      ([, property]) => property.const !== undefined,
    );
    const label = discriminator ? `${path} (${discriminator[0]}: ${String(discriminator[1].const)})` : path;
    rows(variant, `${label}.`, out);
  }
}

export function renderConfigReference(): string {
  const schema = configJsonSchema() as JsonSchemaNode;
  const out = [
    "# Config reference (`vllm-perf-gate.yml`)",
    "",
    "Generated from `src/config/schema.ts` by `npm run schema`; a test fails when this file is stale.",
    "Keys are snake_case. Unknown keys are errors. `${VAR}` and `${VAR:-default}` in any value are read from the",
    'environment (a number or boolean field written as `"${N}"` is read as one); their values are never printed or',
    "recorded (see the README's Secrets section). Add `# yaml-language-server: $schema=<path or URL of",
    "schema/vllm-perf-gate.schema.json>` as the first line for completion and checks in editors.",
    "",
    "| key | type | default | meaning |",
    "| --- | --- | --- | --- |",
  ];
  rows(schema, "", out);
  out.push("", ...limitsSection());
  return `${out.join("\n")}\n`;
}

/** The limits `validate` enforces, from the constants the code checks (so this list cannot drift). */
function limitsSection(): string[] {
  const n = (value: number) => value.toLocaleString("en-US");
  const L = configLimits;
  return [
    "## Limits",
    "",
    "`validate` (and every command that reads a config) refuses a config beyond these limits with exit 2 and a",
    "message naming the limit, so a config that validates never crashes or stalls `run` by its size alone.",
    "",
    "| what | limit |",
    "| --- | --- |",
    `| config file size | ${n(yamlLimits.maxBytes)} bytes (1 MiB) |`,
    `| nesting of mappings and lists | ${yamlLimits.maxDepth} levels |`,
    `| values once every YAML alias (\`*name\`) is expanded | ${n(yamlLimits.maxExpandedValues)} (aliases must be defined before use and may not refer to a node containing them) |`,
    "| duplicate keys in a mapping | none |",
    `| requests in flight (\`concurrency\`, \`max_concurrency\`, a stage's \`concurrency\`; for a session dataset with \`fan_out\`, sessions in flight x its most branches) | ${n(L.concurrency)} |`,
    `| requests per second (\`rate\`, a stage's \`rate\`) | ${n(L.ratePerSecond)} |`,
    `| measured requests per run (\`size.requests\`) | ${n(L.requestsPerRun)} |`,
    `| warm-up requests per run | ${n(L.warmupRequests)} |`,
    `| any duration or timeout (\`duration_s\`, \`timeout_s\`, \`startup_timeout_s\`, telemetry intervals) | ${n(L.seconds)} s |`,
    `| any token count or length (lengths, \`prefix_tokens\`, \`document_tokens\`, \`max_input_tokens\`, \`min_tokens\`) | ${n(L.tokens)} |`,
    `| \`sigma\` of a lognormal length | ${L.lognormalSigma} |`,
    `| prompt tokens per run: \`size.requests\` x the longest prompt (generated datasets; the mean or median for a distribution without \`max\`) | ${n(L.promptTokensPerRun)} |`,
    `| \`num_prefixes\`, \`num_documents\` | ${n(L.datasetItems)} |`,
    `| turns of a session (\`turns\`, \`max_turns\`, a trace's session) | ${n(L.sessionTurns)} |`,
    `| branches of one fan-out (\`fan_out.branches\`) | ${L.fanOutBranches} |`,
    `| think time or tool latency between two turns (\`think_time_s\`, \`latency_s\`) | ${n(L.turnDelaySeconds)} s |`,
    `| rows a trace keeps for its replay (after its filters and window; \`max_rows\`, \`sample\`) | ${n(L.traceRequests)} |`,
    `| stages of a \`stages\` load | ${L.stages} |`,
    `| cells | ${n(L.cells)} |`,
    `| \`repeats.min\`, \`repeats.max\`, \`repeats.baseline\`, \`repeats.block\` | ${n(L.runs)} |`,
    `| \`gate.baseline_sessions\` | ${n(L.baselineSessions)} |`,
    `| \`runner.devices\` (servers at once) | ${n(L.devices)} |`,
    `| \`runner.settle_ms\` | ${n(L.settleMs)} ms |`,
    "",
    "Dataset files are checked when a run reads them (and, for traces, by `validate`), each problem an error naming the",
    "file, the line and the field or column:",
    "",
    "| what | limit |",
    "| --- | --- |",
    `| a trace file ([docs/workloads.md](workloads.md#traces)) | ${n(L.traceFileBytes)} bytes (2 GiB) |`,
    `| one line of a trace (a CSV record, a JSON Lines object) | ${n(L.traceLineBytes)} bytes (1 MiB) |`,
    `| any other dataset file | ${n(L.datasetFileBytes)} bytes (512 MiB) |`,
    "",
    `The client opens at most as many connections as a run has requests (times a fan-out's most branches for a session dataset: a session's branches are in flight at once). A config with many problems lists the first ${maxListedProblems} (each message`,
    `at most ${n(maxProblemChars)} characters, at most ${maxListedKeys} unknown keys named per mapping) and counts the rest; checking is linear in the size of the file.`,
  ];
}
