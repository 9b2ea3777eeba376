import { type ConfigInterpolation, templateView } from "../config/interpolate.js";
import type { ModelConfig, SamplingConfig } from "../config/schema.js";
import type { ServerConfigOf } from "../config/server-kinds.js";
import { type Clock, systemClock } from "../util/clock.js";
import { describeConnectionFailure } from "../util/connection-errors.js";
import { FailureError, InputError, UsageError } from "../util/errors.js";
import { collectFingerprint } from "./collect-fingerprint.js";
import { externalEndpoint } from "./kinds.js";
import { getServedModels, isUnauthorizedStatus, ProbeStatusError } from "./probe.js";
import { reachedServerStart } from "./server-start.js";
import type { ServerProvider, ServerSession } from "./types.js";

/** Read for `--base-url` when neither --api-key-env nor server.api_key_env names a variable, in this order. */
const defaultApiKeyVariables = ["VLLM_API_KEY", "OPENAI_API_KEY"] as const;

/**
 * Where `--base-url`'s API key comes from: the variable `--api-key-env` names (which must be set), else
 * the one server.api_key_env names, else VLLM_API_KEY, else OPENAI_API_KEY (as vLLM's and OpenAI's own
 * clients read them); none when none is set. Returns the variable's name for messages, never printing
 * the value.
 */
export function baseUrlApiKey(
  env: Readonly<Record<string, string | undefined>>,
  names: { flag?: string | undefined; config?: string | undefined },
): { apiKey: string; variable: string } | null {
  if (names.flag !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(names.flag)) {
      throw new UsageError(`--api-key-env expects an environment variable name, got "${names.flag}"`);
    }
    const value = env[names.flag];
    if (!value) {
      throw new InputError(
        `--api-key-env names ${names.flag}, but that environment variable is not set (or empty); nothing was run`,
      );
    }
    return { apiKey: value, variable: names.flag };
  }
  for (const variable of [names.config, ...defaultApiKeyVariables]) {
    const value = variable === undefined ? undefined : env[variable];
    if (variable !== undefined && value) return { apiKey: value, variable };
  }
  return null;
}

/**
 * `--base-url`: an `external` server given on the command line instead of in the config. It is reached
 * and fingerprinted as the registry's external kind is (kinds.ts, collect-fingerprint.ts); unlike a
 * config's external server it is probed once, not polled, and nothing is written for it but the runs:
 * it fails at once when nothing answers there, it refuses the key, or it serves another model.
 */
export function baseUrlProvider(options: {
  baseUrl: string;
  apiKey?: string;
  /** The variable the key was read from, for messages (e.g. "VLLM_API_KEY"). */
  apiKeyVariable?: string;
  metricsUrl?: string;
  model: ModelConfig;
  sampling?: SamplingConfig;
  env?: Readonly<Record<string, string | undefined>>;
  /** What loading the config interpolated: the fingerprint records templates, not these values. */
  interpolation?: ConfigInterpolation;
  /** The server's start as the caller names it (`run --server-start`); default: one per process and address. */
  serverStartId?: string;
  /** For the start's time (when this process first reached the server); default the system's. */
  clock?: Pick<Clock, "wallTime">;
}): ServerProvider {
  const templates = options.interpolation?.templates ?? [];
  const server: ServerConfigOf<"external"> = {
    kind: "external",
    base_url: options.baseUrl,
    ...(options.metricsUrl ? { metrics_url: options.metricsUrl } : {}),
    startup_timeout_s: 0,
  };
  const { baseUrl, metricsUrl } = externalEndpoint(server);
  const endpoint = { baseUrl, metricsUrl, ...(options.apiKey ? { apiKey: options.apiKey } : {}) };
  const target = { baseUrl, apiKey: options.apiKey };
  // Nothing is written here: what the runner writes for it goes through the job's output seam, and its
  // errors (which may quote what the server says) are cleaned by the job's root as they leave.
  return {
    lifecycle: "per-cell",
    async start(): Promise<ServerSession> {
      // Fail before measuring anything when nothing answers there, or it serves another model.
      const served = await getServedModels(target).catch((error: unknown) => {
        if (error instanceof ProbeStatusError && isUnauthorizedStatus(error.status)) {
          throw new FailureError(
            `--base-url ${baseUrl}: GET /v1/models answered HTTP ${error.status} (unauthorized): the server ${
              options.apiKey
                ? `refuses the API key sent (read from ${options.apiKeyVariable ?? "the variable server.api_key_env names"})`
                : `wants an API key and none is sent (pass --api-key-env NAME, set ${defaultApiKeyVariables.join(" or ")}, or set server.api_key_env in the config)`
            }`,
          );
        }
        throw new FailureError(
          `--base-url ${baseUrl}: GET /v1/models failed: ${
            describeConnectionFailure(error, baseUrl) ??
            (error instanceof Error ? error.message : String(error))
          }`,
        );
      });
      if (served.length > 0 && !served.some((model) => model.id === options.model.name)) {
        // The served names are the server's own text: a misbehaving one may echo the key (the root cleans it).
        throw new InputError(
          `model.name: "${options.model.name}" is not served at ${baseUrl}; it serves ${served.map((model) => `"${model.id}"`).join(", ")}`,
        );
      }
      return {
        endpoint,
        // Someone else's server: we cannot see it restart, so one start per process (or as declared).
        start: reachedServerStart(baseUrl, options.clock ?? systemClock, options.serverStartId),
        fingerprint: () =>
          collectFingerprint({
            target,
            metricsUrl,
            // As before the registry: no settings (the command line gives none), so stored baselines still compare.
            server: { kind: server.kind, args: [] },
            readyModels: served,
            model: templateView(options.model, templates, ["model"]),
            sampling: templateView(options.sampling ?? null, templates, ["sampling"]),
            nvidiaSmi: null,
            env: options.env ?? {},
          }),
        // Never resolves: we cannot see an external server's process, only its failed requests.
        exited: new Promise(() => {}),
        async stop() {},
      };
    },
  };
}
