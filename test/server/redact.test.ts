import { describe, expect, it } from "vitest";
import { renderedForms } from "../../src/report/escape.js";
import { buildFingerprint, type FingerprintFacts } from "../../src/server/fingerprint.js";
import { createRedactor, minimumSecretLength, redactValue } from "../../src/server/redact.js";

const secret = 'mst_SECRET555qq-x.y:z*|<"`';

describe("the redactor", () => {
  it("finds a value in the forms files and URLs give it, and the forms a caller adds", () => {
    const redactor = createRedactor([secret], { forms: renderedForms });
    const json = JSON.stringify({ key: secret });
    expect(redactor.redact(json)).toBe('{"key":"***"}');
    expect(redactor.redact(`https://h/?k=${encodeURIComponent(secret)}`)).toBe("https://h/?k=***");
    for (const form of renderedForms(secret)) expect(redactor.redact(`a ${form} b`)).toBe("a *** b");
    // Without the caller's forms, an escaped copy is not recognised: hence redact before escaping.
    expect(createRedactor([secret]).redact(renderedForms(secret)[0]!)).toContain("SECRET555qq");
  });

  it(`leaves values shorter than ${minimumSecretLength} characters alone and replaces with a chosen mark`, () => {
    const redactor = createRedactor(["8000", "true", { value: "a-longer-value", mark: "${NAME}" }]);
    expect(redactor.secretCount).toBe(1);
    expect(redactor.redact("port 8000 true a-longer-value")).toBe("port 8000 true ${NAME}");
    expect(redactor.with(["second-secret"]).redact("a-longer-value second-secret")).toBe("${NAME} ***");
  });

  it("redacts every string of a JSON value, keys included", () => {
    const redactor = createRedactor([secret]);
    expect(redactValue({ [secret]: [1, `x ${secret}`, { y: secret }] }, redactor)).toEqual({
      "***": [1, "x ***", { y: "***" }],
    });
  });
});

describe("the fingerprint of a run", () => {
  it("records a value read from the environment as its ${NAME}, wherever it turns up", () => {
    const facts: FingerprintFacts = {
      tool: { name: "vllm-perf-gate", version: "0.1.0" },
      server: {
        kind: "command",
        command: ["vllm", "serve", `--api-key=${secret}`],
        args: [`--api-key=${secret}`],
      },
      probes: {
        vllmVersion: "0.11.0",
        servedModels: [{ id: `m-${secret}`, root: null, maxModelLen: 4096 }],
        cacheConfig: { tag: secret },
      },
      model: { name: "m", revision: "${DEPLOY_REF}" },
      sampling: { extra_body: { user: secret } },
      gpu: null,
      env: {},
      environment: [{ name: "DEPLOY_REF", value: secret }],
    };
    const text = JSON.stringify(buildFingerprint(facts));
    expect(text).not.toContain("SECRET555qq");
    expect(text).toContain('"--api-key=${DEPLOY_REF}"');
    expect(text).toContain('"m-${DEPLOY_REF}"');
    expect(text).toContain('"revision":"${DEPLOY_REF}"');
    expect(text).toContain('"user":"${DEPLOY_REF}"');
  });
});
