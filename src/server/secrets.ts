import type { ConfigInterpolation, EnvironmentValue } from "../config/interpolate.js";
import type { ServerConfig } from "../config/schema.js";
import { kindEntry } from "./kinds.js";
import type { JobSecrets } from "./outbound.js";

/**
 * The one set of a job's secrets: every value that must never be written or printed, each with the
 * variable it came from. A job's root (a CLI command, the action's main step) builds it once, from the
 * same environment its configs were loaded with and from every config it loaded, and builds the job's
 * output seam from it (outbound.ts), through which every writer writes: the server's log, the run files,
 * messages, compare's verdict and reports, the comment, the job summary and the evidence. Nothing adds
 * to it later. The README's Secrets section lists the same sources.
 */

/** Names that look like credentials; their values are secrets whether or not a config reads them. */
const credentialName = /TOKEN|SECRET|PASSWORD|API_KEY|APIKEY|PRIVATE/i;

/** What a job knows that can hold a secret. */
export interface SecretSources {
  /** The environment the job reads (and hands to the servers it starts). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The configs the job loaded (the pull request's; the base commit's): what they read and what they name. */
  readonly configs?: readonly {
    readonly config: { readonly server: ServerConfig };
    readonly interpolation: ConfigInterpolation;
  }[];
  /** Variables named elsewhere than in a config (`--api-key-env NAME`). */
  readonly variables?: readonly (string | undefined)[];
  /** The job's GitHub token (the action's `github-token` input). */
  readonly token?: string | undefined;
}

/**
 * Every value of the job's secrets, in this order, each value once: the token; per config,
 * `server.api_key_env`'s value, the values of the variables the server is handed by name (the docker
 * kind's `server.env`), the values the config read through `${VAR}`; the variables named on the command
 * line; and, as a safety net, every variable whose name looks like a credential (`credentialName`).
 */
export function secretsOf(sources: SecretSources): EnvironmentValue[] {
  const { env } = sources;
  const named: EnvironmentValue[] = [];
  const seen = new Set<string>();
  const add = (name: string, value: string | undefined) => {
    if (!value || seen.has(value)) return;
    seen.add(value);
    named.push({ name, value });
  };
  const fromEnv = (name: string | undefined) => {
    if (name) add(name, env[name]);
  };
  add("github-token", sources.token);
  for (const { config, interpolation } of sources.configs ?? []) {
    const server = config.server;
    if ("api_key_env" in server) fromEnv(server.api_key_env);
    for (const name of kindEntry(server).passedEnv(server)) fromEnv(name);
    for (const entry of interpolation.values) add(entry.name, entry.value);
  }
  for (const name of sources.variables ?? []) fromEnv(name);
  for (const name of Object.keys(env).sort()) if (credentialName.test(name)) fromEnv(name);
  return named;
}

/** The job's set (see secretsOf): built once, at the job's root. */
export function collectJobSecrets(sources: SecretSources): JobSecrets {
  return { named: secretsOf(sources) };
}
