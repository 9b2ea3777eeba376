import { describe, expect, it } from "vitest";
import { workloadConditions } from "../../../src/app/run-file.js";
import { compareRecords, settingsFromConfig } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { parseConfigText } from "../../../src/config/load.js";
import { presetText } from "../../../src/config/presets.js";
import { cellSchedule } from "../../../src/config/schedule.js";
import type { Config } from "../../../src/config/schema.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { renderMarkdown } from "../../../src/report/markdown.js";
import { buildFingerprint, hashConfig } from "../../../src/server/fingerprint.js";
import { serverSettings } from "../../../src/server/kinds.js";
import { noisyRuns } from "../fixtures.js";

/**
 * The comparability rule as production applies it: fingerprints built the way the server provider builds
 * them (src/server/provider.ts: buildFingerprint with hashConfig of the whole parsed config), the config
 * `init --preset chat --server docker` writes, and compare's verdict.
 */
function initConfig(edit: (text: string) => string = (text) => text): Config {
  return parseConfigText(edit(presetText("chat", "docker", "schema.json")), "vllm-perf-gate.yml").config;
}

function fingerprintFor(
  config: Config,
  facts: {
    imageDigest?: string;
    vllmVersion?: string;
    runner?: string;
    toolVersion?: string;
    /** As a version of the tool from before server.settings was recorded. */
    withoutSettings?: boolean;
  } = {},
) {
  if (config.server.kind !== "docker") throw new Error("expected the docker preset");
  return buildFingerprint({
    tool: { name: "vllm-perf-gate", version: facts.toolVersion ?? "0.1.0" },
    server: {
      kind: "docker",
      image: config.server.image,
      imageDigest: facts.imageDigest ?? "vllm/vllm-openai@sha256:aaaa",
      args: config.server.args,
      ...(facts.withoutSettings ? {} : { settings: serverSettings(config.server) }),
    },
    probes: {
      vllmVersion: facts.vllmVersion ?? "0.11.0",
      servedModels: [{ id: config.model.name, root: config.model.name, maxModelLen: 40960 }],
      cacheConfig: { block_size: "16" },
    },
    model: config.model,
    sampling: config.sampling,
    gpu: null,
    env: { RUNNER_OS: "Linux", RUNNER_NAME: facts.runner ?? "gpu-runner-1", RUNNER_ARCH: "X64" },
    configHash: hashConfig(config),
  }) as unknown as Record<string, unknown>;
}

function side(fingerprint: Record<string, unknown>, seed: number, name: string): RunRecord[] {
  return noisyRuns(5, { seed, sd: 0.01, fingerprint }).map((run, i) =>
    runRecordFromRunFile(run, `${name}/chat/run-${i}/run.json`),
  );
}

function compare(config: Config, baseline: Record<string, unknown>, candidate: Record<string, unknown>) {
  const outcome = compareRecords({
    baseline: side(baseline, 1, "b"),
    candidate: side(candidate, 2, "c"),
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date("2026-12-01T09:00:00Z"),
  });
  verdictFileSchema.parse(outcome.verdict);
  return outcome.verdict;
}

describe("one comparability rule", () => {
  it("compares an image bump under the config init writes (config hash differs, image is allowed)", () => {
    const main = initConfig();
    // The image line (the starter's comment names the same tag in the command that finds its digest).
    const bumped = initConfig((text) =>
      text.replace(
        /image: vllm\/vllm-openai:v0\.11\.0@sha256:0+/,
        `image: vllm/vllm-openai:v0.12.0@sha256:${"1".repeat(64)}`,
      ),
    );
    expect(hashConfig(main)).not.toBe(hashConfig(bumped));
    const verdict = compare(
      bumped,
      fingerprintFor(main),
      fingerprintFor(bumped, { imageDigest: "vllm/vllm-openai@sha256:bbbb", vllmVersion: "0.12.0" }),
    );
    expect(verdict.verdict).toBe("pass");
    expect(verdict.fingerprints.differences.map((d) => [d.field, d.allowed, d.informational])).toEqual([
      ["configHash", true, true],
      ["server.image", true, false],
      ["server.imageDigest", true, false],
      ["server.vllmVersion", true, false],
    ]);
  });

  it("compares two runners of one pool and two tool builds", () => {
    const config = initConfig();
    const verdict = compare(
      config,
      fingerprintFor(config, { runner: "gpu-runner-1", toolVersion: "0.1.0" }),
      fingerprintFor(config, { runner: "gpu-runner-7", toolVersion: "0.2.0" }),
    );
    expect(verdict.verdict).toBe("pass");
    expect(verdict.fingerprints.differences.map((d) => [d.field, d.informational])).toEqual([
      ["runner.name", true],
      ["tool.version", true],
    ]);
    expect(renderMarkdown(verdict, { form: "report" })).toMatch(
      /runner\.name.*gpu-runner-1.*gpu-runner-7.*recorded only/,
    );
  });

  it("compares docker's own settings field by field, now that the whole-config hash does not block", () => {
    const main = initConfig();
    const shm = initConfig((text) =>
      text.replace(/^(\s+)image: /m, "$1docker_args: [--shm-size, 16g]\n$1image: "),
    );
    expect(shm.server.kind === "docker" && shm.server.docker_args).toEqual(["--shm-size", "16g"]);
    const verdict = compare(shm, fingerprintFor(main), fingerprintFor(shm));
    expect(verdict.verdict).toBe("not-comparable");
    expect(verdict.fingerprints.differences.filter((d) => !d.allowed)).toEqual([
      {
        field: "server.settings.dockerArgs",
        cells: ["chat"],
        baseline: [],
        candidate: ["--shm-size", "16g"],
        allowed: false,
        informational: false,
      },
    ]);
  });

  it("a field a baseline from an older tool version never recorded does not block; from the same version it does", () => {
    const config = initConfig();
    const older = compare(
      config,
      fingerprintFor(config, { toolVersion: "0.0.9", withoutSettings: true }),
      fingerprintFor(config),
    );
    expect(older.verdict).toBe("pass");
    expect(
      older.fingerprints.differences
        .filter((d) => d.field.startsWith("server.settings"))
        .every((d) => d.informational),
    ).toBe(true);
    const same = compare(config, fingerprintFor(config, { withoutSettings: true }), fingerprintFor(config));
    expect(same.verdict).toBe("not-comparable");
  });

  it("blocks a real difference and names the field with its value on each side", () => {
    const main = initConfig();
    const warmer = initConfig((text) => text.replace(/^ {2}temperature: 0$/m, "  temperature: 0.7"));
    expect(warmer.sampling.temperature).toBe(0.7);
    const verdict = compare(warmer, fingerprintFor(main), fingerprintFor(warmer));
    expect(verdict.verdict).toBe("not-comparable");
    const blocking = verdict.fingerprints.differences.filter((d) => !d.allowed);
    expect(blocking).toEqual([
      {
        field: "sampling.temperature",
        cells: ["chat"],
        baseline: 0,
        candidate: 0.7,
        allowed: false,
        informational: false,
      },
    ]);
    const markdown = renderMarkdown(verdict, { form: "report" });
    expect(markdown).toMatch(/sampling\.temperature \| 0 \| 0\.7 \| \*\*no\*\*/);
    // In the first screen, kept within any budget, the blocking field is named with both values.
    for (const form of ["report", "comment"] as const)
      expect(renderMarkdown(verdict, { form, budget: 1800 })).toMatch(
        /\*\*Not comparable:\*\*\n- sampling\.temperature: 0 \(baseline\) vs 0\.7 \(candidate\)/,
      );

    const warned = compare(
      initConfig((text) =>
        text
          .replace(/^ {2}temperature: 0$/m, "  temperature: 0.7")
          .replace("allowed_differences:", "on_not_comparable: warn\n  allowed_differences:"),
      ),
      fingerprintFor(main),
      fingerprintFor(warmer),
    );
    expect(warned.verdict).toBe("pass");
    expect(warned.warnings.join("\n")).toContain("sampling.temperature: 0 (baseline) vs 0.7 (candidate)");
  });

  describe("the dataset: a condition of its cell, recorded in fingerprint.workload", () => {
    // The first cell of the init config reads a ShareGPT file instead of its synthetic prompts.
    const config = initConfig((text) =>
      text.replace(
        /dataset:\n\s+type: synthetic\n\s+input_tokens: .*\n\s+output_tokens: .*\n/,
        "dataset: { type: sharegpt, path: data/sharegpt.json }\n",
      ),
    );
    const cell = config.cells[0]!;
    const tokenModel = { tokensPerWord: 1.3, offset: 0, source: "default" as const };
    /** A run's fingerprint as run-file.ts records it: the server's conditions and the workload's. */
    const recorded = (datasetSha256: string, seed = 0, base = fingerprintFor(config)) => ({
      ...base,
      workload: workloadConditions(cell, seed, cellSchedule(config, cell), { datasetSha256, tokenModel }),
    });

    it("blocks a changed dataset file, naming its checksum on each side", () => {
      expect(cell.dataset).toEqual({ type: "sharegpt", path: "data/sharegpt.json" });
      const verdict = compare(config, recorded("a".repeat(64)), recorded("b".repeat(64)));
      expect(verdict.verdict).toBe("not-comparable");
      expect(verdict.fingerprints.differences.filter((d) => !d.allowed)).toEqual([
        {
          field: "workload.datasetSha256",
          cells: ["chat"],
          baseline: "a".repeat(64),
          candidate: "b".repeat(64),
          allowed: false,
          informational: false,
        },
      ]);
      const reseeded = compare(config, recorded("a".repeat(64)), recorded("a".repeat(64), 1));
      expect(reseeded.fingerprints.differences.map((d) => [d.field, d.allowed])).toEqual([
        ["workload.seed", false],
      ]);
    });

    it("compares a baseline recorded with the retired, always empty `datasets` field, same tool version", () => {
      const before = { ...recorded("a".repeat(64)), datasets: {} };
      const now = recorded("a".repeat(64));
      expect("datasets" in now).toBe(false);
      const verdict = compare(config, before, now);
      expect(verdict.verdict).toBe("pass");
      expect(verdict.fingerprints.differences).toEqual([]);
    });
  });
});
