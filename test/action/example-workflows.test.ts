import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseActionInputs } from "../../src/action/inputs.js";

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

  it("are the five documented ones", () => {
    expect(files).toEqual([
      "baseline-on-main.yml",
      "external-endpoint.yml",
      "interleaved.yml",
      "matrix-across-runners.yml",
      "pr-gate.yml",
    ]);
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
        expect(job.permissions?.contents, file).toBe("read");
      }
    }
    expect(uses).toBeGreaterThan(0);
  });
});
