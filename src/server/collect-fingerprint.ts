import type { ModelConfig, SamplingConfig } from "../config/schema.js";
import { toolName, toolVersion } from "../version.js";
import { buildFingerprint, type Fingerprint, type FingerprintFacts } from "./fingerprint.js";
import type { NvidiaSmi } from "./nvidia-smi.js";
import { getServedModels, getText, getVllmVersion, type ServedModel } from "./probe.js";
import { cacheConfigFromMetrics, parsePrometheusText } from "./prometheus-text.js";

/** What is known of a server before it is asked about itself. */
export interface FingerprintSources {
  readonly target: { baseUrl: string; apiKey?: string | undefined };
  readonly metricsUrl: string;
  /** What the kind's entry and its launcher know: kind, image, command, args, settings. */
  readonly server: FingerprintFacts["server"];
  /** Models /v1/models listed when the server became ready; used when asking again fails. */
  readonly readyModels: readonly ServedModel[];
  /** The template views (values from the environment are recorded as their references). */
  readonly model: ModelConfig;
  readonly sampling: SamplingConfig | Record<string, unknown> | null;
  /** null: no local GPU to describe (external and simulated servers). */
  readonly nvidiaSmi: NvidiaSmi | null;
  /** The devices the server runs on (runner.devices), null: the GPUs its config names. */
  readonly device?: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly configHash?: string | undefined;
}

/**
 * The one fingerprint collector of every server, launched or reached (a config's kind or --base-url):
 * asks the server about itself (/version, /v1/models, vllm:cache_config_info) and nvidia-smi about the
 * GPUs, then builds the record compare diffs.
 */
export async function collectFingerprint(sources: FingerprintSources): Promise<Fingerprint> {
  const { target } = sources;
  const [vllmVersion, servedModels, metricsText, gpu] = await Promise.all([
    getVllmVersion(target),
    getServedModels(target).catch(() => [...sources.readyModels]),
    getText(sources.metricsUrl, target.apiKey).catch(() => null),
    sources.nvidiaSmi ? sources.nvidiaSmi.inventory() : Promise.resolve(null),
  ]);
  return buildFingerprint({
    tool: { name: toolName, version: toolVersion },
    server: sources.server,
    probes: {
      vllmVersion,
      servedModels,
      cacheConfig: metricsText === null ? null : cacheConfigFromMetrics(parsePrometheusText(metricsText)),
    },
    model: sources.model,
    sampling: sources.sampling,
    gpu,
    device: sources.device ?? null,
    env: sources.env,
    configHash: sources.configHash ?? null,
  });
}
