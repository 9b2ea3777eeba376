import { existsSync } from 'node:fs';
import { mkdir, writeFile, access } from 'node:fs/promises';
import { resolve, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { b as serverKindFacts, d as defaultConfigFile, e as serverKinds } from './load.js';
import { g as gatedMetricNames } from './metric-names.js';
import { E as ExitCode, U as UsageError } from './version.js';
import { p as parseCommandArgs, s as stringOption } from './command.js';
import 'node:crypto';
import './index.js';
import './schemas.js';
import 'process';
import 'buffer';
import 'node:child_process';
import 'node:perf_hooks';
import 'node:util';

/**
 * Starter configs written by `vllm-perf-gate init --preset NAME`. They are YAML text (not objects) so the
 * comments that explain each choice reach the user's file; a test validates every preset with every
 * server kind. Each kind's `server:` block is its module's (config/server-kinds/).
 */
const presetNames = ["chat", "rag", "batch", "matrix-18", "agent"];
const presetDescriptions = {
    chat: "an interactive assistant: short prompts, medium answers, usual and near-capacity load",
    rag: "retrieval-augmented answers: one long document, many short questions (prefix reuse) and fresh documents",
    batch: "offline generation: long outputs at high concurrency, judged on completed volume",
    "matrix-18": "the validation matrix: 3 task types x fresh/reused prefix x low/usual/near-capacity load, plus a traffic spike",
    agent: "a coding agent: sessions of many turns over a shared system prompt, the context growing turn by turn, think time between turns, sub-agents fanned out and joined",
};
const header = (preset, schemaRef) => `# yaml-language-server: $schema=${schemaRef}
# vllm-perf-gate config (preset: ${preset}): ${presetDescriptions[preset]}.
# Reference: docs/config-reference.md (every key) and README.md#config in the vllm-perf-gate repository.
# Check it with: vllm-perf-gate validate --config <this file> (installing the CLI: README.md#the-cli)
version: 1
name: ${preset}
seed: 0
`;
const model = (kind) => `
# The served model name sent in requests, and the revisions pinned and recorded with every result.
model:
  name: ${serverKindFacts[kind].preset.modelName}
  revision: main
  tokenizer_revision: main
  max_model_len: 32768

# Sampling is frozen: every field is sent explicitly (vLLM's defaults changed between versions).
sampling:
  temperature: 0
  top_p: 1
  ignore_eos: true           # exact output lengths: fewer moving parts between runs
`;
const gate = (extra = []) => `
# Runs per side: the gate decides after min runs and adds runs while the verdict is inconclusive, up to max.
# Many short runs (>= 200 requests each for p95) buy more power per GPU-minute than few long ones.
repeats:
  min: 5
  max: 25

# What blocks a merge. Every other metric is reported as advisory.
gate:
  metrics: [${[...gatedMetricNames, ...extra].join(", ")}]
  tolerance: 0.05            # changes within 5% are not regressions
  confidence: 0.95           # family-wise, over all gated metrics of all cells (Holm)
  fail_on: regression        # or: inconclusive (stricter), never (report only)
  error_rate_limit: 0.01
  allowed_differences: [server.image, server.args]   # the thing a PR may change; anything else makes results not comparable

cost:
  gpu_hourly_usd: 4.0        # optional: prints cost per 1,000 successful requests
`;
const agentCells = `
cells:
  # Sessions (docs/workloads.md): a rate and max_concurrency count sessions, size and warm-up too; each
  # session sends its turns one after the other, each with the whole conversation so far.
  - name: agent-usual
    description: coding-agent sessions at the usual arrival rate, the context growing turn by turn
    endpoint: chat
    dataset:
      type: sessions
      turns: { distribution: uniform, min: 4, max: 16 }
      system_prompt_tokens: 2000       # the agent's instructions and tool descriptions, shared
      shared_system_prompt: 1
      message_tokens: { distribution: lognormal, median: 150, sigma: 0.8, min: 8, max: 2000 }
      output_tokens: { distribution: lognormal, median: 250, sigma: 0.6, min: 16, max: 1024 }
      think_time_s: { distribution: exponential, mean: 2, max: 20 }
    load: { type: rate, rate: 0.5, burstiness: 1, max_concurrency: 32 }
    size: { requests: 80 }             # sessions per run (about 800 requests; 200+ of them at depth 8 and deeper, the floor for gating that bucket's p95)
    warmup: { requests: 2 }            # warm-up sessions: their own conversations, the system prompt shared
    prefix: fresh                      # reset + salt per run: each run measures its own sessions' reuse
    slo: { ttft_ms: 1000, tpot_ms: 50 }
  - name: agent-deep
    description: long sessions near capacity, where the KV cache decides how much of each context is reused
    endpoint: chat
    dataset:
      type: sessions
      turns: { distribution: uniform, min: 16, max: 32 }
      system_prompt_tokens: 2000
      message_tokens: { distribution: lognormal, median: 150, sigma: 0.8, min: 8, max: 2000 }
      output_tokens: { distribution: lognormal, median: 250, sigma: 0.6, min: 16, max: 1024 }
      think_time_s: { distribution: exponential, mean: 2, max: 20 }
    load: { type: concurrency, concurrency: 16 }
    size: { requests: 32 }
    warmup: { requests: 2 }
    prefix: fresh
    slo: { ttft_ms: 2000, tpot_ms: 60 }
  - name: agent-fanout
    description: an agent that delegates, sending sub-agents at once over its shared context and waiting for all of them
    endpoint: chat
    dataset:
      type: sessions
      turns: { distribution: uniform, min: 6, max: 16 }
      system_prompt_tokens: 2000
      message_tokens: { distribution: lognormal, median: 150, sigma: 0.8, min: 8, max: 2000 }
      output_tokens: { distribution: lognormal, median: 250, sigma: 0.6, min: 16, max: 1024 }
      think_time_s: { distribution: exponential, mean: 2, max: 20 }
      # Sub-agent fan-out (docs/workloads.md): at a fan-out turn every branch is the conversation so far,
      # the turn's message and a task of its own, sent at once; the session goes on once all answered.
      fan_out:
        share: 0.25                    # a quarter of the turns delegate
        branches: { min: 2, max: 6 }   # sub-agents per fan-out
        message_tokens: { distribution: lognormal, median: 80, sigma: 0.5, min: 8, max: 512 }
        output_tokens: { distribution: lognormal, median: 300, sigma: 0.6, min: 16, max: 1024 }
    load: { type: rate, rate: 0.25, burstiness: 1, max_concurrency: 16 }
    size: { requests: 64 }             # sessions per run (about 1,000 requests, their fan-outs' branches included)
    warmup: { requests: 2 }
    prefix: fresh
    slo: { ttft_ms: 1000, tpot_ms: 50 }
`;
const chatCells = `
cells:
  - name: chat-usual
    description: short conversations at the usual arrival rate
    endpoint: chat
    dataset:
      type: synthetic
      input_tokens: { distribution: lognormal, median: 256, sigma: 0.6, min: 16, max: 2048 }
      output_tokens: { distribution: lognormal, median: 200, sigma: 0.5, min: 16, max: 1024 }
    load: { type: rate, rate: 4, burstiness: 1, max_concurrency: 128 }
    size: { requests: 300 }
    warmup: { requests: 8 }
    prefix: fresh
    slo: { ttft_ms: 500, tpot_ms: 50, e2el_ms: 15000 }
  - name: chat-peak
    description: the same conversations near capacity
    endpoint: chat
    dataset:
      type: synthetic
      input_tokens: { distribution: lognormal, median: 256, sigma: 0.6, min: 16, max: 2048 }
      output_tokens: { distribution: lognormal, median: 200, sigma: 0.5, min: 16, max: 1024 }
    load: { type: concurrency, concurrency: 64 }
    size: { requests: 300 }
    warmup: { requests: 8 }
    prefix: fresh
    slo: { ttft_ms: 1000, tpot_ms: 80, e2el_ms: 25000 }
`;
const ragCells = `
cells:
  - name: rag-reuse
    description: many short questions over one long document (the prefix cache should serve the document)
    endpoint: chat
    dataset:
      type: long_document
      num_documents: 4
      document_tokens: 6000
      question_tokens: { distribution: uniform, min: 16, max: 64 }
      output_tokens: { distribution: uniform, min: 48, max: 160 }
    load: { type: rate, rate: 2, burstiness: 1, max_concurrency: 64 }
    size: { requests: 250 }
    warmup: { requests: 4 }
    prefix: reuse
    slo: { ttft_ms: 1500, tpot_ms: 60, e2el_ms: 12000 }
  - name: rag-fresh
    description: a new long document with every question (no reuse, so prefill-bound)
    endpoint: completions
    dataset:
      type: synthetic
      input_tokens: { distribution: uniform, min: 4000, max: 8000 }
      output_tokens: { distribution: uniform, min: 48, max: 160 }
    load: { type: rate, rate: 1, burstiness: 1, max_concurrency: 64 }
    size: { requests: 200 }
    warmup: { requests: 4 }
    prefix: fresh
    slo: { ttft_ms: 3000, tpot_ms: 60, e2el_ms: 15000 }
`;
const batchCells = `
cells:
  - name: batch-long-output
    description: long generations at a fixed high concurrency; completed volume matters most
    endpoint: completions
    dataset:
      type: synthetic
      input_tokens: { distribution: uniform, min: 256, max: 768 }
      output_tokens: { distribution: fixed, value: 1024 }
    load: { type: concurrency, concurrency: 128 }
    size: { requests: 256 }
    warmup: { requests: 8 }
    prefix: fresh
    slo: { e2el_ms: 120000 }
`;
const matrixTasks = [
    {
        name: "chat",
        description: "short conversation",
        endpoint: "chat",
        fresh: `{ type: synthetic, input_tokens: { distribution: lognormal, median: 256, sigma: 0.6, min: 16, max: 2048 }, output_tokens: { distribution: lognormal, median: 200, sigma: 0.5, min: 16, max: 1024 } }`,
        reuse: `{ type: shared_prefix, num_prefixes: 8, prefix_tokens: 512, suffix_tokens: { distribution: uniform, min: 32, max: 256 }, output_tokens: { distribution: lognormal, median: 200, sigma: 0.5, min: 16, max: 1024 } }`,
        rates: [1, 4, 8],
        slo: "{ ttft_ms: 500, tpot_ms: 50, e2el_ms: 15000 }",
    },
    {
        name: "rag",
        description: "long document, short answer",
        endpoint: "completions",
        fresh: `{ type: synthetic, input_tokens: { distribution: uniform, min: 4000, max: 8000 }, output_tokens: { distribution: uniform, min: 48, max: 160 } }`,
        reuse: `{ type: long_document, num_documents: 4, document_tokens: 6000, question_tokens: { distribution: uniform, min: 16, max: 64 }, output_tokens: { distribution: uniform, min: 48, max: 160 } }`,
        rates: [0.5, 1, 2],
        slo: "{ ttft_ms: 3000, tpot_ms: 60, e2el_ms: 15000 }",
    },
    {
        name: "longgen",
        description: "long output",
        endpoint: "completions",
        fresh: `{ type: synthetic, input_tokens: { distribution: uniform, min: 128, max: 512 }, output_tokens: { distribution: fixed, value: 1024 } }`,
        reuse: `{ type: shared_prefix, num_prefixes: 4, prefix_tokens: 256, suffix_tokens: { distribution: uniform, min: 32, max: 128 }, output_tokens: { distribution: fixed, value: 1024 } }`,
        rates: [0.5, 1, 2],
        slo: "{ tpot_ms: 60, e2el_ms: 90000 }",
    },
];
function matrixCells() {
    const loads = ["low", "usual", "peak"];
    const lines = [
        "",
        "# 3 task types x fresh/reused prefix x low/usual/near-capacity load = 18 cells, plus a spike.",
        "# Set the three rates of each task from your own traffic (low, usual, near the knee).",
        "cells:",
    ];
    for (const task of matrixTasks) {
        for (const prefix of ["fresh", "reuse"]) {
            loads.forEach((load, index) => {
                lines.push(`  - name: ${task.name}-${prefix}-${load}`, `    description: ${task.description}, ${prefix === "fresh" ? "no reusable prefix" : "reused prefix"}, ${load} load`, `    endpoint: ${task.endpoint}`, `    dataset: ${prefix === "fresh" ? task.fresh : task.reuse}`, `    load: { type: rate, rate: ${task.rates[index]}, burstiness: 1, max_concurrency: 256 }`, `    size: { requests: ${load === "peak" ? 400 : 240} }`, `    warmup: { requests: 4 }`, `    prefix: ${prefix}`, `    slo: ${task.slo}`);
            });
        }
    }
    lines.push(`  - name: spike`, `    description: a sudden rush of users on top of usual chat traffic (effective rate, queueing, failures)`, `    endpoint: chat`, `    dataset: ${matrixTasks[0].fresh}`, `    load:`, `      type: stages`, `      max_concurrency: 512`, `      stages:`, `        - { duration_s: 30, rate: 4 }`, `        - { duration_s: 15, rate: 24 }`, `        - { duration_s: 30, rate: 4 }`, `    size: { duration_s: 75 }`, `    warmup: { requests: 4 }`, `    prefix: fresh`, `    slo: ${matrixTasks[0].slo}`);
    return `${lines.join("\n")}\n`;
}
/** Per preset, the traffic its capacity cell (`init --capacity`) is searched with: its main cell's. */
const capacityWorkloads = {
    chat: {
        name: "chat-capacity",
        description: "the chat traffic at rising rates, for the requests per hour one server completes at the SLOs",
        endpoint: "chat",
        dataset: `{ type: synthetic, input_tokens: { distribution: lognormal, median: 256, sigma: 0.6, min: 16, max: 2048 }, output_tokens: { distribution: lognormal, median: 200, sigma: 0.5, min: 16, max: 1024 } }`,
        load: "{ type: rate, rate: 4, burstiness: 1, max_concurrency: 256 }",
        range: { min: 1, max: 64 },
        slo: "{ ttft_ms: 500, tpot_ms: 50 }",
    },
    rag: {
        name: "rag-capacity",
        description: "questions over one long document at rising rates, for the requests per hour at the SLOs",
        endpoint: "chat",
        dataset: `{ type: long_document, num_documents: 4, document_tokens: 6000, question_tokens: { distribution: uniform, min: 16, max: 64 }, output_tokens: { distribution: uniform, min: 48, max: 160 } }`,
        load: "{ type: rate, rate: 2, burstiness: 1, max_concurrency: 64 }",
        range: { min: 0.5, max: 32 },
        slo: "{ ttft_ms: 1500, tpot_ms: 60 }",
    },
    batch: {
        name: "batch-capacity",
        description: "long generations at rising concurrency, for the completed requests per hour within the deadline",
        endpoint: "completions",
        dataset: `{ type: synthetic, input_tokens: { distribution: uniform, min: 256, max: 768 }, output_tokens: { distribution: fixed, value: 1024 } }`,
        load: "{ type: concurrency, concurrency: 64 }",
        range: { min: 8, max: 512 },
        slo: "{ e2el_ms: 120000 }",
    },
    agent: {
        name: "agent-capacity",
        description: "the agent's sessions at rising arrival rates, for the sessions per hour one server completes at the SLOs",
        endpoint: "chat",
        dataset: `{ type: sessions, turns: { distribution: uniform, min: 4, max: 16 }, system_prompt_tokens: 2000, message_tokens: { distribution: lognormal, median: 150, sigma: 0.8, min: 8, max: 2000 }, output_tokens: { distribution: lognormal, median: 250, sigma: 0.6, min: 16, max: 1024 }, think_time_s: { distribution: exponential, mean: 2, max: 20 } }`,
        load: "{ type: rate, rate: 0.5, burstiness: 1, max_concurrency: 64 }",
        range: { min: 0.1, max: 4 },
        slo: "{ ttft_ms: 1000, tpot_ms: 50 }",
    },
    "matrix-18": {
        name: "chat-capacity",
        description: "the matrix's chat traffic at rising rates, for the requests per hour one server completes at the SLOs",
        endpoint: "chat",
        dataset: matrixTasks[0].fresh,
        load: "{ type: rate, rate: 4, burstiness: 1, max_concurrency: 256 }",
        range: { min: 1, max: 64 },
        slo: matrixTasks[0].slo,
    },
};
/**
 * The capacity cell `init --capacity` adds to a preset (docs/capacity.md): its traffic searched over
 * loads for the highest one at which every SLO holds, so the report answers "how many more requests per
 * hour at our SLOs, how long do the slowest users wait" for both sides.
 */
function capacityCell(preset) {
    const w = capacityWorkloads[preset];
    return `  # Capacity at the SLOs: the load is searched (run --sweep, and the action on both sides) for the
  # highest one at which every SLO below holds at the p95 of each run; compare reports each side's
  # requests per hour there, how long the slowest 5% wait, and the change with its interval.
  - name: ${w.name}
    description: ${w.description}
    endpoint: ${w.endpoint}
    dataset: ${w.dataset}
    load: ${w.load}
    size: { requests: 200 }
    warmup: { requests: 4 }
    prefix: fresh
    slo: ${w.slo}
    capacity:
      percentile: p95
      range: { min: ${w.range.min}, max: ${w.range.max} }
      precision: 0.05        # stop when the interval is within 5% of the capacity
      gated: true            # a capacity drop beyond the tolerance blocks, like any gated metric
`;
}
/** `schemaRef` is the path or URL of schema/vllm-perf-gate.schema.json that editors should use. */
function presetText(preset, kind, schemaRef, options = {}) {
    const cells = {
        chat: chatCells,
        rag: ragCells,
        batch: batchCells,
        "matrix-18": matrixCells(),
        agent: agentCells,
    }[preset];
    const withCapacity = options.capacity ? `${cells}${capacityCell(preset)}` : cells;
    // An agent's deep turns are what a KV-cache change moves: their first-token wait blocks too; so does the
    // wait for a fan-out's slowest sub-agent (gated in the cells that fan out).
    const extra = preset === "agent" ? ["ttft_p95_depth_8_up", "session_goodput", "fan_out_completion_p95"] : [];
    return `${header(preset, schemaRef)}${serverKindFacts[kind].preset.server}${model(kind)}${withCapacity}${gate(extra)}`;
}

/** The JSON Schema shipped with this copy of the tool (repository checkout, npm install or action). */
function shippedSchemaPath() {
    let directory = dirname(fileURLToPath(import.meta.url));
    for (let depth = 0; depth < 6; depth++) {
        const candidate = resolve(directory, "schema", "vllm-perf-gate.schema.json");
        if (existsSync(candidate))
            return candidate;
        directory = dirname(directory);
    }
    return undefined;
}
const initCommand = {
    name: "init",
    usage: `Usage: vllm-perf-gate init [--preset NAME] [--server KIND] [--out FILE] [--force]

Writes a commented starter config.

Options:
  -p, --preset NAME   ${presetNames.join(" | ")} (default: chat)
${presetNames.map((name) => `                        ${name}: ${presetDescriptions[name]}`).join("\n")}
  -s, --server KIND   how the server is obtained: ${serverKinds.join(" | ")} (default: docker)
  -o, --out FILE      where to write (default: ${defaultConfigFile})
      --capacity      add a capacity cell: the preset's traffic searched over loads for the
                      highest one that meets its SLOs (requests per hour at the SLOs, both sides)
      --schema REF    path or URL for the yaml-language-server $schema line
                      (default: the schema file shipped with this tool, as a relative path)
  -f, --force         overwrite an existing file
  -h, --help          show this help
`,
    async run(argv, io) {
        const args = parseCommandArgs(argv, {
            preset: { type: "string", short: "p" },
            server: { type: "string", short: "s" },
            out: { type: "string", short: "o" },
            schema: { type: "string" },
            capacity: { type: "boolean" },
            force: { type: "boolean", short: "f" },
        });
        if (args.help) {
            io.stdout.write(this.usage);
            return ExitCode.ok;
        }
        const preset = stringOption(args, "preset") ?? "chat";
        if (!presetNames.includes(preset)) {
            throw new UsageError(`unknown preset "${preset}"; expected one of: ${presetNames.join(", ")}`);
        }
        const kind = stringOption(args, "server") ?? "docker";
        if (!serverKinds.includes(kind)) {
            throw new UsageError(`unknown server kind "${kind}"; expected one of: ${serverKinds.join(", ")}`);
        }
        const out = resolve(io.cwd, stringOption(args, "out") ?? defaultConfigFile);
        if (args.values.force !== true && (await exists(out))) {
            throw new UsageError(`${out} already exists; pass --force to overwrite it`);
        }
        const schemaRef = stringOption(args, "schema") ?? schemaReferenceFrom(dirname(out));
        await mkdir(dirname(out), { recursive: true });
        const capacity = args.values.capacity === true;
        await writeFile(out, presetText(preset, kind, schemaRef, { capacity }));
        io.stdout.write(`wrote ${relative(io.cwd, out) || out} (preset ${preset}, server ${kind}${capacity ? ", with a capacity cell" : ""})\nnext: vllm-perf-gate validate --config ${relative(io.cwd, out) || out}\n`);
        return ExitCode.ok;
    },
};
function schemaReferenceFrom(directory) {
    const schema = shippedSchemaPath();
    if (!schema)
        return "schema/vllm-perf-gate.schema.json";
    const path = relative(directory, schema);
    return path.startsWith(".") ? path : `./${path}`;
}
async function exists(path) {
    try {
        await access(path);
        return true;
    }
    catch {
        return false;
    }
}

export { initCommand };
