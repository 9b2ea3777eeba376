import { renderedForms } from "../report/escape.js";
import { createOutbound, type Outbound } from "../server/outbound.js";
import { collectJobSecrets, type SecretSources } from "../server/secrets.js";

/**
 * A job's one way out, built at its root (`run`, `compare`, `calibrate`, `demo`, `history`, the action's
 * main step) once it has read what can hold a secret: the job's one secret set (server/secrets.ts) of
 * the environment its configs were loaded with, those configs, the variables its flags name and its
 * token; and the forms our reports give a value (markdown and HTML escaping), for the last pass over
 * what was rendered.
 */
export function jobOutbound(sources: SecretSources): Outbound {
  return createOutbound(collectJobSecrets(sources), { forms: renderedForms });
}
