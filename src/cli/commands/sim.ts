import {
  engineFlagKnobs,
  engineSwitchKnobs,
  faultForms,
  ignoredEngineFlags,
  ignoredEngineSwitches,
  knobHelp,
  ProfileError,
  parseFault,
  parseHumanInt,
  parseSettings,
  profileHelp,
  resolveProfile,
  type SimProfile,
  startSimulator,
} from "../../sim/index.js";
import { FailureError, InputError, UsageError } from "../../util/errors.js";
import type { CliCommand, OptionSpec } from "../command.js";
import { integerOption, parseCommandArgs, stringListOption, stringOption } from "../command.js";

function wrap(words: readonly string[], width: number, indent: string): string {
  const lines: string[] = [];
  let line = indent;
  for (const word of words) {
    if (line.length + word.length + 2 > width && line.trim() !== "") {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${word}, `;
  }
  lines.push(line.replace(/, $/, "."));
  return lines.join("\n");
}

const usage = `Usage: vllm-perf-gate sim [options] [MODEL]

A vLLM-compatible OpenAI server whose timing follows a continuous-batching model (no GPU needed).
Prints "vllm-perf-gate sim listening on http://HOST:PORT" once listening; runs until SIGTERM/SIGINT.

Options:
  --host H                    listen address (default 127.0.0.1)
  --port N                    port (default 8000; 0 picks a free port)
  --profile NAME|FILE         built-in profile or a profile file (YAML/JSON, schemaVersion 1)
  --set KEY=VALUE             override a profile knob (repeatable)
  --seed N                    seeds speed noise, jitter, EOS positions and fault draws (default 0)
  --model NAME, [MODEL]       served model name (default sim-model)
  --served-model-name NAME    served model name (wins over --model, as in vLLM)
  --api-key KEY               /v1/* needs "Authorization: Bearer KEY" (default: $VLLM_API_KEY)
  --dev-mode                  enable POST /reset_prefix_cache (also VLLM_SERVER_DEV_MODE=1)
  --device K                  the simulated GPU's index: its speed is the K-th device_speed_factors entry
                              (default: the first of CUDA_VISIBLE_DEVICES, else 0)
  --fault SPEC                inject a fault (repeatable), see Faults
  --record-chunk-times        keep when each chunk was written; read it at GET /admin/chunks
  --list-profiles             print the built-in profiles and exit
  -h, --help                  show this help

vLLM engine flags (aliases of knobs): --max-num-seqs, --max-num-batched-tokens, --max-model-len (1k ok),
  --block-size, --num-gpu-blocks-override, --kv-cache-dtype, --gpu-memory-utilization,
  --enable-prefix-caching / --no-enable-prefix-caching, --enable-prompt-tokens-details, --disable-log-stats.
Accepted and ignored:
${wrap(
  [...ignoredEngineFlags, ...ignoredEngineSwitches].map((flag) => `--${flag}`),
  100,
  "  ",
)}

Profiles (illustrative shapes, not measurements of any GPU):
${profileHelp()}

Knobs (--set, profile files, POST /admin/config; times in ms):
${knobHelp()}

Step time = (step_overhead_ms + prefill_per_token_ms x prefill tokens + decode_per_seq_ms x decoding
sequences + attention_per_context_token_ms x their context tokens) x speed factor x step jitter.

Faults (--fault):
${faultForms.map(([form, help]) => `  ${form.padEnd(30)}${help}`).join("\n")}

Endpoints: GET /health /ping /version /v1/models /metrics; POST /v1/completions /v1/chat/completions
/tokenize /detokenize; dev mode: POST /reset_prefix_cache. Simulator only: GET /admin/config (the
effective profile), POST /admin/config with a JSON object of knobs (validated, applied atomically),
GET /admin/chunks[?offset=N] (with --record-chunk-times: when each chunk was really written).
Tokenizer: one token per whitespace-separated word. See docs/sim.md.
`;

const options: OptionSpec = {
  host: { type: "string" },
  port: { type: "string" },
  profile: { type: "string" },
  set: { type: "string", multiple: true },
  seed: { type: "string" },
  model: { type: "string" },
  "served-model-name": { type: "string" },
  "api-key": { type: "string" },
  "dev-mode": { type: "boolean" },
  device: { type: "string" },
  fault: { type: "string", multiple: true },
  "list-profiles": { type: "boolean" },
  "record-chunk-times": { type: "boolean" },
  "enable-prefix-caching": { type: "boolean" },
  "no-enable-prefix-caching": { type: "boolean" },
  ...Object.fromEntries(Object.keys(engineFlagKnobs).map((flag) => [flag, { type: "string" as const }])),
  ...Object.fromEntries(Object.keys(engineSwitchKnobs).map((flag) => [flag, { type: "boolean" as const }])),
  ...Object.fromEntries(ignoredEngineFlags.map((flag) => [flag, { type: "string" as const }])),
  ...Object.fromEntries(ignoredEngineSwitches.map((flag) => [flag, { type: "boolean" as const }])),
};

function engineOverrides(
  args: ReturnType<typeof parseCommandArgs>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [flag, knob] of Object.entries(engineFlagKnobs)) {
    const raw = stringOption(args, flag);
    if (raw === undefined) continue;
    if (knob === "cache_dtype") out[knob] = raw;
    else if (knob === "gpu_memory_utilization") out[knob] = Number(raw);
    else out[knob] = parseHumanInt(flag, raw);
  }
  for (const [flag, knob] of Object.entries(engineSwitchKnobs))
    if (args.values[flag] === true) out[knob] = true;
  if (args.values["enable-prefix-caching"] === true) out.enable_prefix_caching = true;
  if (args.values["no-enable-prefix-caching"] === true) out.enable_prefix_caching = false;
  return out;
}

export const simCommand: CliCommand = {
  name: "sim",
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, options, { allowPositionals: true });
    if (args.help) {
      io.stdout.write(usage);
      return 0;
    }
    if (args.values["list-profiles"] === true) {
      io.stdout.write(`${profileHelp()}\n`);
      return 0;
    }
    const start = simulatorOptions(args, io.env);
    let death: string | undefined;
    const sim = await listen({
      ...start,
      onEngineDeath: (reason) => {
        death = reason;
        void sim.close();
      },
    });
    const effective = sim.profile();
    io.stderr.write(
      `sim: profile ${effective.name}, model ${start.model}, seed ${start.seed}${start.device ? `, device ${start.device}` : ""}\n`,
    );
    // vLLM's own readiness lines, for log watchers written against the real server.
    io.stderr.write(
      `INFO: Starting vLLM API server 0 on ${sim.baseUrl}\nINFO: Application startup complete.\n`,
    );
    io.stdout.write(`vllm-perf-gate sim listening on ${sim.baseUrl}\n`);
    const stop = () => void sim.close();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    await sim.closed;
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    if (death !== undefined) {
      io.stderr.write(`sim: ${death}\n`);
      return 1;
    }
    return 0;
  },
};

type StartOptions = Parameters<typeof startSimulator>[0];

/** The simulator as the flags (vLLM's among them) and the environment describe it. */
function simulatorOptions(
  args: ReturnType<typeof parseCommandArgs>,
  env: Readonly<Record<string, string | undefined>>,
): StartOptions & { model: string; seed: number; device: number; host: string; port: number } {
  if (args.positionals.length > 1) {
    throw new UsageError(`expected at most one positional MODEL, got ${args.positionals.join(" ")}`);
  }
  const port = integerOption(args, "port") ?? 8000;
  if (port > 65535) throw new UsageError(`--port expects a TCP port (0-65535), got ${port}`);
  // The simulated GPU: --device, else the first GPU CUDA_VISIBLE_DEVICES gives the process (as a CUDA
  // program on that GPU would run), else 0.
  const visible = Number(env.CUDA_VISIBLE_DEVICES?.split(",")[0]);
  const device = integerOption(args, "device") ?? (Number.isInteger(visible) && visible >= 0 ? visible : 0);
  let set: Record<string, string | number | boolean>;
  let profile: SimProfile;
  try {
    profile = resolveProfile(stringOption(args, "profile"));
    set = { ...engineOverrides(args) };
    for (const fault of stringListOption(args, "fault")) Object.assign(set, parseFault(fault));
    Object.assign(set, parseSettings(stringListOption(args, "set")));
  } catch (error) {
    if (error instanceof ProfileError) throw new InputError(error.message);
    throw error;
  }
  return {
    profile,
    set,
    seed: integerOption(args, "seed") ?? 0,
    device,
    host: stringOption(args, "host") ?? "127.0.0.1",
    port,
    model:
      stringOption(args, "served-model-name") ??
      stringOption(args, "model") ??
      args.positionals[0] ??
      "sim-model",
    apiKey: stringOption(args, "api-key") ?? env.VLLM_API_KEY,
    devMode: args.values["dev-mode"] === true || env.VLLM_SERVER_DEV_MODE === "1",
    recordChunkTimes: args.values["record-chunk-times"] === true,
  };
}

/** Starts the simulator; a port it cannot listen on is a FailureError naming the address. */
async function listen(start: StartOptions & { host: string; port: number }) {
  try {
    return await startSimulator(start);
  } catch (error) {
    if (error instanceof ProfileError) throw new InputError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") {
      throw new FailureError(`cannot listen on ${start.host}:${start.port}: ${(error as Error).message}`);
    }
    throw error;
  }
}
