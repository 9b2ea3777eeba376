import { type ConfigInterpolation, templateView } from "../config/interpolate.js";
import type { ModelConfig, SamplingConfig } from "../config/schema.js";
import { buildFingerprint } from "../server/fingerprint.js";
import {
  getServedModels,
  getText,
  getVllmVersion,
  isUnauthorizedStatus,
  ProbeStatusError,
} from "../server/probe.js";
import { cacheConfigFromMetrics, parsePrometheusText } from "../server/prometheus-text.js";
import { createRedactor, credentialLikeValues } from "../server/redact.js";
import type { ServerProvider, ServerSession } from "../server/types.js";
import { FailureError, InputError } from "../util/errors.js";
import { toolName, toolVersion } from "../version.js";

/**
 * `--base-url`: a server someone else runs. Its sessions start nothing and stop nothing; the fingerprint
 * comes from what the server says about itself (/version, /v1/models, vllm:cache_config_info).
 */
export function baseUrlProvider(options: {
  baseUrl: string;
  apiKey?: string;
  metricsUrl?: string;
  model: ModelConfig;
  sampling?: SamplingConfig;
  env?: Readonly<Record<string, string | undefined>>;
  /** What loading the config interpolated: the fingerprint records templates, not these values. */
  interpolation?: ConfigInterpolation;
}): ServerProvider {
  const templates = options.interpolation?.templates ?? [];
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const endpoint = {
    baseUrl,
    metricsUrl: options.metricsUrl ?? `${baseUrl}/metrics`,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  };
  const redactor = createRedactor([
    options.apiKey,
    ...credentialLikeValues(options.env ?? {}),
    ...(options.interpolation?.values ?? []).map((entry) => entry.value),
  ]);
  return {
    lifecycle: "per-cell",
    async start(): Promise<ServerSession> {
      // Fail before measuring anything when nothing answers there, or it serves another model.
      const served = await getServedModels({ baseUrl, apiKey: options.apiKey }).catch((error: unknown) => {
        if (error instanceof ProbeStatusError && isUnauthorizedStatus(error.status)) {
          throw new FailureError(
            `--base-url ${baseUrl}: GET /v1/models answered HTTP ${error.status} (unauthorized): the server ${
              options.apiKey
                ? "refuses the API key sent (the variable server.api_key_env names)"
                : "wants an API key and none is sent (set server.api_key_env in the config)"
            }`,
          );
        }
        throw new FailureError(
          `--base-url ${baseUrl}: GET /v1/models failed (${error instanceof Error ? error.message : String(error)})`,
        );
      });
      if (served.length > 0 && !served.some((model) => model.id === options.model.name)) {
        throw new InputError(
          `model.name: "${options.model.name}" is not served at ${baseUrl}; it serves ${served.map((model) => `"${model.id}"`).join(", ")}`,
        );
      }
      return {
        endpoint,
        redact: redactor.redact,
        async fingerprint() {
          const target = { baseUrl, apiKey: options.apiKey };
          const [vllmVersion, servedModels, metricsText] = await Promise.all([
            getVllmVersion(target),
            getServedModels(target).catch(() => []),
            getText(endpoint.metricsUrl).catch(() => null),
          ]);
          return buildFingerprint({
            tool: { name: toolName, version: toolVersion },
            server: { kind: "external", args: [] },
            probes: {
              vllmVersion,
              servedModels,
              cacheConfig:
                metricsText === null ? null : cacheConfigFromMetrics(parsePrometheusText(metricsText)),
            },
            model: templateView(options.model, templates, ["model"]),
            sampling: templateView(options.sampling ?? null, templates, ["sampling"]),
            gpu: null,
            env: options.env ?? {},
            environment: options.interpolation?.values ?? [],
          });
        },
        // Never resolves: we cannot see an external server's process, only its failed requests.
        exited: new Promise(() => {}),
        async stop() {},
      };
    },
  };
}
