import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import type { CalibrateOptions } from "../../src/app/calibrate.js";
import { type CompareResultsInput, writeCompareOutputs } from "../../src/app/compare.js";
import type { DemoOptions } from "../../src/app/demo.js";
import type { CompareRequest, MeasureRequest } from "../../src/app/gate/dependencies.js";
import type { JobScope } from "../../src/app/gate/job-scope.js";
import type { RunActionOptions } from "../../src/app/gate/orchestrator.js";
import type { PublishRequest } from "../../src/app/gate/publish.js";
import { redactEvidence } from "../../src/app/gate/redact-evidence.js";
import { jobOutbound } from "../../src/app/job-outbound.js";
import type { CellsMeasuring } from "../../src/app/measure-requested.js";
import type { RunCellsOptions } from "../../src/app/run-cells.js";
import { writeRunExports } from "../../src/app/run-exports.js";
import { writeCurveOfDir } from "../../src/app/sweep-curve.js";
import { writeSweepReport } from "../../src/app/sweep-report.js";
import { renderedForms } from "../../src/report/escape.js";
import type { ExternalTaskRun } from "../../src/runner/external-task.js";
import type { JsonlAppender } from "../../src/runner/jsonl-appender.js";
import type { RunCellsOptions as RunnerCellsOptions } from "../../src/runner/run-cells.js";
import type { RunOnceOptions } from "../../src/runner/run-once.js";
import type { RunOutcome } from "../../src/runner/run-recorder.js";
import { buildFingerprint, type FingerprintFacts } from "../../src/server/fingerprint.js";
import {
  createOutbound,
  type JobSecrets,
  minimumSecretLength,
  type Outbound,
} from "../../src/server/outbound.js";
import type { ServerProviderOptions } from "../../src/server/provider.js";
import { collectJobSecrets } from "../../src/server/secrets.js";
import type { ServerLog } from "../../src/server/server-log.js";
import { plantedSecret } from "../secret-forms.js";

/**
 * The job's one way out (src/server/outbound.ts): the only module that redacts. Every writer is handed it
 * by the job's root and cannot be built without it.
 */

const secret = plantedSecret;
const env = { DEPLOY_REF: secret, PATH: "/usr/bin:/bin" };
const work = mkdtempSync(join(tmpdir(), "vpg-outbound-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The seam of a job that read DEPLOY_REF through a config (named, so the set holds it). */
const outbound = () =>
  createOutbound({ named: [{ name: "DEPLOY_REF", value: secret }] }, { forms: renderedForms });

describe("the job's output seam", () => {
  it("cleans a value in the forms files and URLs give it, and the forms the root adds", () => {
    const seam = outbound();
    expect(seam.clean(JSON.stringify({ key: secret }))).toBe('{"key":"***"}');
    expect(seam.clean(`https://h/?k=${encodeURIComponent(secret)}`)).toBe("https://h/?k=***");
    for (const form of renderedForms(secret)) expect(seam.clean(`a ${form} b`)).toBe("a *** b");
    // Without the root's forms an escaped copy is not recognised: hence clean before escaping.
    const bare = createOutbound({ named: [{ name: "DEPLOY_REF", value: secret }] });
    expect(bare.clean(renderedForms(secret)[0]!)).toContain("SECRET555qq");
  });

  it(`replaces the longest value first and leaves values under ${minimumSecretLength} characters alone`, () => {
    const seam = createOutbound({
      named: [
        { name: "A_TOKEN", value: "hf_abcdef123" },
        { name: "B_TOKEN", value: "hf_abcdef" },
        { name: "PORT_TOKEN", value: "8000" },
      ],
    });
    expect(seam.clean("token=hf_abcdef123 other=hf_abcdef port 8000")).toBe("token=*** other=*** port 8000");
  });

  it("cleans every string of a JSON value, keys included, and leaves the rest as it was", () => {
    expect(outbound().clean({ [secret]: [1, `x ${secret}`, { y: secret, n: null, b: true }] })).toEqual({
      "***": [1, "x ***", { y: "***", n: null, b: true }],
    });
  });

  it("writes files and hands sinks their text cleaned; a JSON file stays JSON", async () => {
    const seam = outbound();
    const seen: string[] = [];
    const sink = seam.through((text) => {
      seen.push(text);
      return text.length;
    });
    expect(sink(`server said ${secret}`)).toBe("server said ***".length);
    expect(seen).toEqual(["server said ***"]);
    await seam.writeFile(join(work, "a.json"), JSON.stringify({ note: `key ${secret}` }));
    seam.writeFileSync(join(work, "b.txt"), `${secret}\n`);
    expect(JSON.parse(readFileSync(join(work, "a.json"), "utf8"))).toEqual({ note: "key ***" });
    expect(readFileSync(join(work, "b.txt"), "utf8")).toBe("***\n");
  });

  it("cleans a file someone else wrote in place, leaving binary files and files over the limit alone", async () => {
    const seam = outbound();
    const text = join(work, "part.log");
    const big = join(work, "big.log");
    const binary = join(work, "blob.bin");
    writeFileSync(text, `--revision ${secret}\n`);
    writeFileSync(big, `${secret}${"x".repeat(64)}`);
    writeFileSync(binary, Buffer.concat([Buffer.from(secret), Buffer.from([0, 1, 2])]));
    expect(await seam.cleanFile(text, 1024)).toBe(true);
    expect(readFileSync(text, "utf8")).toBe("--revision ***\n");
    expect(await seam.cleanFile(text, 1024)).toBe(false);
    expect(await seam.cleanFile(big, 16)).toBe(false);
    expect(await seam.cleanFile(binary, 1024)).toBe(false);
    expect(readFileSync(binary).includes(Buffer.from(secret))).toBe(true);
  });

  it("cleans an error's message and stack in place and keeps its class (the exit code)", () => {
    class FailureError extends Error {}
    const error = new FailureError(`the server refused ${secret}`);
    const cleaned = outbound().error(error);
    expect(cleaned).toBe(error);
    expect(cleaned).toBeInstanceOf(FailureError);
    expect(cleaned.message).toBe("the server refused ***");
    expect(cleaned.stack).not.toContain("SECRET555qq");
    expect(outbound().error("not an error")).toBe("not an error");
  });

  it("records a value as its reference ${NAME} wherever it turns up in the fingerprint", () => {
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
    };
    const text = JSON.stringify(outbound().references(buildFingerprint(facts)));
    expect(text).not.toContain("SECRET555qq");
    expect(text).toContain('"--api-key=${DEPLOY_REF}"');
    expect(text).toContain('"m-${DEPLOY_REF}"');
    expect(text).toContain('"revision":"${DEPLOY_REF}"');
    expect(text).toContain('"user":"${DEPLOY_REF}"');
  });

  it("is built at a root from the job's one set: the environment, its configs and its token", () => {
    const seam = jobOutbound({ env, token: "ghs_token_value_0" });
    // DEPLOY_REF's name does not look secret and no config read it: not in this job's set.
    expect(seam.clean(`ref ${secret}, token ghs_token_value_0, path /usr/bin:/bin`)).toBe(
      `ref ${secret}, token ***, path /usr/bin:/bin`,
    );
    expect(seam.secrets).toEqual(collectJobSecrets({ env, token: "ghs_token_value_0" }));
  });
});

describe("a root without a secret set", () => {
  it("cannot build the seam: the type requires the set, and a caller the compiler did not check fails at once", () => {
    // @ts-expect-error the job's secret set is required
    expect(() => createOutbound()).toThrow(/the job's secret set/);
    expect(() => createOutbound(undefined as unknown as JobSecrets)).toThrow(TypeError);
    expect(() => createOutbound({} as JobSecrets)).toThrow(/the job's secret set/);
  });

  /*
   * Type-level: every writer's options or parameters hold the seam as required, never optional (an
   * optional one would be `Outbound | undefined` and fail these at `npm run typecheck`). The runtime half
   * of each is a no-op; the compiler is the test.
   */
  it("cannot hand a writer no seam: every writer requires it by its type", () => {
    type Seam<T extends { outbound?: unknown }> = Pick<T, "outbound">;
    expectTypeOf<Seam<RunCellsOptions>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<RunnerCellsOptions<unknown>>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<RunOnceOptions<unknown>>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<RunOutcome>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<ExternalTaskRun>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<ServerProviderOptions>>().toEqualTypeOf<{ readonly outbound: Outbound }>();
    expectTypeOf<Seam<CompareResultsInput>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<CalibrateOptions>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<DemoOptions>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<MeasureRequest>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<CompareRequest>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<CellsMeasuring>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<JobScope>>().toEqualTypeOf<{ readonly outbound: Outbound }>();
    expectTypeOf<Seam<PublishRequest>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf<Seam<RunActionOptions>>().toEqualTypeOf<{ outbound: Outbound }>();
    expectTypeOf(writeCompareOutputs).parameter(2).toEqualTypeOf<Outbound>();
    expectTypeOf(writeRunExports).parameter(3).toEqualTypeOf<Outbound>();
    expectTypeOf(writeCurveOfDir).parameter(2).toEqualTypeOf<Outbound>();
    expectTypeOf(writeSweepReport).parameter(3).toEqualTypeOf<Outbound>();
    expectTypeOf(redactEvidence).parameter(1).toEqualTypeOf<Outbound>();
    expectTypeOf(createOutbound).parameter(0).toEqualTypeOf<JobSecrets>();
    expectTypeOf<ConstructorParameters<typeof JsonlAppender>[1]>().toEqualTypeOf<Outbound>();
    expectTypeOf<ConstructorParameters<typeof ServerLog>[1]>().toEqualTypeOf<Outbound>();
  });
});
