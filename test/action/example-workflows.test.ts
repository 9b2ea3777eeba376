import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseActionInputs } from "../../src/action/inputs.js";
import { loadConfig } from "../../src/config/load.js";
import { summarizeConfig } from "../../src/config/summary.js";
import { lookSchedule } from "../../src/stats/sequential.js";

const dir = new URL("../../examples/workflows/", import.meta.url);

interface Step {
  uses?: string;
  with?: Record<string, string>;
}
interface Workflow {
  permissions?: unknown;
  jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
}

describe("example workflows", async () => {
  const actionYml = parse(await readFile(new URL("../../action.yml", import.meta.url), "utf8")) as {
    inputs: Record<string, unknown>;
  };
  const files = (await readdir(dir)).filter((file) => file.endsWith(".yml")).sort();

  it("are the seven documented ones", () => {
    expect(files).toEqual([
      "baseline-on-main.yml",
      "external-endpoint.yml",
      "interleaved.yml",
      "matrix-across-runners.yml",
      "nightly-matrix.yml",
      "pr-gate.yml",
      "pr-tier.yml",
    ]);
  });

  it("the tiers: the PR tier's cells exist and its timeout covers validate's estimate; the nightly job records the full matrix with change points", async () => {
    const { config } = await loadConfig(fileURLToPath(new URL("../matrix-18.yml", dir)), { env: {} });
    const looks = lookSchedule(config.repeats.min, config.repeats.max);
    const tier = parse(await readFile(new URL("pr-tier.yml", dir), "utf8")) as {
      jobs: Record<string, { "timeout-minutes"?: number; steps: Step[] }>;
    };
    const measure = tier.jobs.measure!;
    const names = String(measure.steps.find((s) => s.with?.cells)?.with?.cells).split(",");
    const tierConfig = { ...config, cells: config.cells.filter((cell) => names.includes(cell.name)) };
    expect(tierConfig.cells.length).toBe(names.length);
    const interleaved = summarizeConfig(tierConfig, [], looks).gpuMinutes.find(
      (e) => e.mode === "interleaved",
    );
    expect(interleaved!.minutes.max).toBeLessThanOrEqual(Number(measure["timeout-minutes"]));
    const aggregate = tier.jobs.verdict!.steps.find((s) => s.with?.mode === "aggregate");
    expect(aggregate?.with?.["history-main-regressed"]).toBe("pass");
    const nightly = parse(await readFile(new URL("nightly-matrix.yml", dir), "utf8")) as {
      on: { schedule?: unknown[] };
      jobs: Record<string, { "timeout-minutes"?: number; steps: Step[] }>;
    };
    expect(nightly.on.schedule?.length).toBeGreaterThan(0);
    const job = nightly.jobs.baseline!;
    const step = job.steps.find((s) => s.with?.mode === "baseline")!;
    expect(step.with?.cells).toBeUndefined();
    expect(step.with?.history).toBe("branch");
    expect(step.with?.["history-change-points"]).toBeDefined();
    const baseline = summarizeConfig(config, [], looks).gpuMinutes.find((e) => e.mode === "baseline");
    expect(baseline!.minutes.first).toBeLessThanOrEqual(Number(job["timeout-minutes"]));
  });

  it.each(files)("%s passes only valid inputs and asks for least privilege", async (file) => {
    const workflow = parse(await readFile(new URL(file, dir), "utf8")) as Workflow;
    expect(workflow.permissions).toEqual({});
    let uses = 0;
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps.filter((s) => s.uses?.startsWith("vllm-perf-gate/vllm-perf-gate@"))) {
        uses++;
        const values = step.with ?? {};
        for (const name of Object.keys(values))
          expect(Object.keys(actionYml.inputs), `${file}: ${name}`).toContain(name);
        // Expressions are left as-is; everything literal must parse.
        const literal = (name: string) =>
          String(values[name] ?? "").includes("${{") ? "" : String(values[name] ?? "");
        expect(() => parseActionInputs({ getInput: literal })).not.toThrow();
        // Baseline jobs and matrix parts never comment; everything else may.
        const comments = (values.mode ?? "auto") !== "baseline" && !values.cells;
        if (comments) expect(job.permissions?.["pull-requests"], file).toBe("write");
        // Main's history on a branch is written by baseline jobs, which need contents: write; a job that
        // also gates pull requests keeps contents: read and uses the artifact history (or none).
        const recordsBaseline =
          !values.cells && ["baseline", "auto", "aggregate"].includes(String(values.mode ?? "auto"));
        const branchHistory = !["artifact", "off"].includes(String(values.history ?? "branch"));
        if (recordsBaseline && branchHistory) {
          expect(values.mode, `${file}: only a dedicated baseline job may write the history branch`).toBe(
            "baseline",
          );
          expect(job.permissions?.contents, file).toBe("write");
        } else expect(job.permissions?.contents, file).toBe("read");
      }
    }
    expect(uses).toBeGreaterThan(0);
  });

  it("matrix-across-runners.yml gives each part the time validate estimates for it", async () => {
    const workflow = parse(await readFile(new URL("matrix-across-runners.yml", dir), "utf8")) as {
      jobs: Record<string, { "timeout-minutes"?: string; strategy?: { matrix?: { cells?: string[] } } }>;
    };
    const part = Object.values(workflow.jobs).find((job) => job.strategy?.matrix?.cells);
    const timeout = /^\$\{\{ github\.event_name == 'push' && (\d+) \|\| (\d+) \}\}$/.exec(
      String(part?.["timeout-minutes"]),
    );
    expect(timeout, "timeout-minutes set per event").not.toBeNull();
    const [pushMinutes, prMinutes] = [Number(timeout![1]), Number(timeout![2])];
    const { config } = await loadConfig(fileURLToPath(new URL("../matrix-18.yml", dir)), { env: {} });
    for (const cells of part!.strategy!.matrix!.cells!) {
      const names = cells.split(",");
      const partConfig = { ...config, cells: config.cells.filter((cell) => names.includes(cell.name)) };
      expect(partConfig.cells.length, cells).toBe(names.length);
      const looks = lookSchedule(config.repeats.min, config.repeats.max);
      const estimate = Object.fromEntries(
        summarizeConfig(partConfig, [], looks).gpuMinutes.map((entry) => [entry.mode, entry]),
      );
      // A part measures repeats.min runs and never adds more: interleaved on a PR, the baseline on a push.
      expect(estimate.interleaved?.minutes.first, cells).toBeLessThanOrEqual(prMinutes);
      expect(estimate.baseline?.minutes.first, cells).toBeLessThanOrEqual(pushMinutes);
    }
  });
});
