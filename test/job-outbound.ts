import { jobOutbound } from "../src/app/job-outbound.js";
import type { SecretSources } from "../src/server/secrets.js";

/** A job's output seam as a root builds it: the secret set of `env` (and configs), the report's forms. */
export function outboundFor(
  env: SecretSources["env"] = {},
  configs: SecretSources["configs"] = [],
): ReturnType<typeof jobOutbound> {
  return jobOutbound({ env, configs });
}

/** The seam of a job whose environment holds no secret: what tests that plant none hand their writers. */
export const noSecrets = outboundFor();
