import { describe, expect, expectTypeOf, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import { createOutbound, type JobSecrets } from "../../src/server/outbound.js";
import { collectJobSecrets, secretsOf } from "../../src/server/secrets.js";

const cells = `cells:
  - { name: a, dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }, load: { type: concurrency, concurrency: 1 }, size: { requests: 1 } }
`;

const env = {
  SERVE_KEY: "serve-key-value-1",
  HF_CACHE_OWNER: "passed-by-name-2",
  DEPLOY_REF: "read-through-var-3",
  HF_TOKEN: "credential-like-4",
  PATH: "/usr/bin:/bin",
};

const dockerConfig = parseConfigText(
  `version: 1
server:
  kind: docker
  image: vllm/vllm-openai@sha256:${"a".repeat(64)}
  env: [HF_CACHE_OWNER]
  api_key_env: SERVE_KEY
model: { name: m, revision: "\${DEPLOY_REF}" }
${cells}`,
  "c.yml",
  { env },
);

describe("the job's one set of secrets", () => {
  it("holds the token, api_key_env's value, server.env's values, ${VAR} values and credential-like names", () => {
    expect(secretsOf({ env, configs: [dockerConfig], token: "ghs_token_value_0" })).toEqual([
      { name: "github-token", value: "ghs_token_value_0" },
      { name: "SERVE_KEY", value: "serve-key-value-1" },
      { name: "HF_CACHE_OWNER", value: "passed-by-name-2" },
      { name: "DEPLOY_REF", value: "read-through-var-3" },
      { name: "HF_TOKEN", value: "credential-like-4" },
    ]);
  });

  it("takes --api-key-env's variable, counts a value once and skips what is not set", () => {
    const named = secretsOf({
      env: { ...env, OTHER: env.SERVE_KEY },
      variables: ["OTHER", "UNSET", undefined],
    });
    expect(named).toEqual([
      { name: "OTHER", value: "serve-key-value-1" },
      { name: "HF_TOKEN", value: "credential-like-4" },
    ]);
  });

  it("is built once from what the job read: a config's values are secrets only in the set of a job that loaded it", () => {
    const text = `key ${env.SERVE_KEY}, ref ${env.DEPLOY_REF}, token ${env.HF_TOKEN}, path ${env.PATH}`;
    const alone = createOutbound(collectJobSecrets({ env }));
    expect(alone.clean(text)).toBe(
      `key ${env.SERVE_KEY}, ref ${env.DEPLOY_REF}, token ***, path /usr/bin:/bin`,
    );
    const withConfig = createOutbound(collectJobSecrets({ env, configs: [dockerConfig] }));
    expect(withConfig.clean(text)).toBe("key ***, ref ***, token ***, path /usr/bin:/bin");
    expect(withConfig.secrets.named.map((entry) => entry.name)).toEqual([
      "SERVE_KEY",
      "HF_CACHE_OWNER",
      "DEPLOY_REF",
      "HF_TOKEN",
    ]);
    // Nothing extends a set once built: it is its values, nothing more.
    expectTypeOf<keyof JobSecrets>().toEqualTypeOf<"named">();
  });
});
