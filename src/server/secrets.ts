import type { ConfigInterpolation, EnvironmentValue } from "../config/interpolate.js";
import type { ServerConfig } from "../config/schema.js";
import { kindEntry } from "./kinds.js";
import { createRedactor, credentialName, type Redactor, type RedactorOptions } from "./redact.js";

/**
 * The one set of a job's secrets: every value that must never be written or printed, each with the
 * variable it came from. A job (a CLI command, the action's main step) builds it once and hands it to
 * every writer: the server's log, the run files, messages, compare's verdict and reports, the comment,
 * the job summary and the evidence. The README's Secrets section lists the same sources.
 */

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

/** The set, and the one redactor built from it. */
export interface JobSecrets {
  /** Every value with its source (a variable's name; `github-token` for the token). */
  readonly named: readonly EnvironmentValue[];
  /** What every writer passes its text through. */
  readonly redactor: Redactor;
  /** The set with more sources (a config loaded later in the job), same redactor options. */
  with(more: Omit<SecretSources, "env">): JobSecrets;
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

/** The job's set (see secretsOf) and its redactor; `options.forms` adds the encodings a report gives a value. */
export function collectJobSecrets(sources: SecretSources, options: RedactorOptions = {}): JobSecrets {
  const named = secretsOf(sources);
  return {
    named,
    redactor: createRedactor(
      named.map((entry) => entry.value),
      options,
    ),
    with: (more) =>
      collectJobSecrets(
        {
          env: sources.env,
          configs: [...(sources.configs ?? []), ...(more.configs ?? [])],
          variables: [...(sources.variables ?? []), ...(more.variables ?? [])],
          token: sources.token ?? more.token,
        },
        options,
      ),
  };
}
