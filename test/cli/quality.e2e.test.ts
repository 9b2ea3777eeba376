import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, compareInterleaved } from "./helpers.js";

/**
 * The three quality checks from the CLI against the simulator (`run`, then `compare --config`): a tasks
 * cell and a greedy-output cell; the candidate's simulator answers fewer tasks right (task_accuracy),
 * changes a share of its greedy outputs (quality_changed_share) and truncates a share of its answers
 * (quality_truncate_share, which the mean-output-length guard sees); an external task (a fake lm_eval on
 * PATH, test/fixtures/bin/fake-lm-eval.mjs) asks the same simulator. Each check is a regression, the
 * verdict is a regression with exit 1, and the guard and task tests sit in one gated family.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-quality-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** PATH with `lm_eval` on it: a wrapper around the fake. */
function fakeLmEvalPath(): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const script = resolve("test/fixtures/bin/fake-lm-eval.mjs");
  writeFileSync(join(bin, "lm_eval"), `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`);
  chmodSync(join(bin, "lm_eval"), 0o755);
  return `${bin}:${process.env.PATH ?? ""}`;
}

function config(set: string): string {
  return `version: 1
server:
  kind: sim
  profile: noiseless
  set: { eos_mean_tokens: 30, ${set} }
  startup_timeout_s: 120
model: { name: sim-model }
cells:
  - name: tasks
    dataset: { type: tasks, count: 200 }
    load: { type: concurrency, concurrency: 8 }
    size: { requests: 200 }
    warmup: { requests: 0 }
  - name: greedy
    dataset: { type: synthetic, input_tokens: { distribution: uniform, min: 8, max: 40 }, output_tokens: 48 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 120 }
    warmup: { requests: 0 }
quality:
  greedy: { cells: [greedy], logprobs: 1 }
  tasks:
    external:
      - name: arith
        cell: tasks
        command: [lm_eval, --model, local-completions, --model_args, "model={model},base_url={base_url}", --limit, "200", --output_path, "{result_file}"]
        accuracy_path: "results.arith.exact_match,none"
        samples_path: samples.arith
        id_field: doc_id
        score_field: exact_match
repeats: { min: 2, max: 2 }
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 100 }
gate: { allowed_differences: [server.command] }
`;
}

describe("the quality checks from the CLI", () => {
  it("run and compare --config: task, greedy and guard regressions, in one gated family, exit 1", async () => {
    writeFileSync(join(dir, "base.yml"), config("task_accuracy: 0.95"));
    writeFileSync(
      join(dir, "cand.yml"),
      config("task_accuracy: 0.7, quality_changed_share: 0.3, quality_truncate_share: 0.4"),
    );
    const env = { ...process.env, PATH: fakeLmEvalPath() } as Record<string, string>;
    // One side after the other: two simulators and two clients at once would share two loaded cores.
    const base = await cli(["run", "--config", "base.yml", "--out", "base", "--side", "baseline"], {
      cwd: dir,
      env,
    });
    expect(base.code, base.stderr).toBe(0);
    const cand = await cli(["run", "--config", "cand.yml", "--out", "cand", "--side", "candidate"], {
      cwd: dir,
      env,
    });
    expect(cand.code, cand.stderr).toBe(0);
    const compare = await compareInterleaved(dir);
    expect(compare.code, compare.stderr).toBe(1);
    const verdict = compare.verdict;
    expect(verdict.verdict).toBe("regression");
    const quality = verdict.quality!;
    const task = quality.tasks!.find((check) => check.cell === "tasks" && check.external === undefined)!;
    expect(task.verdict).toBe("regression");
    expect(task.onlyBaseline).toBeGreaterThan(task.onlyCandidate);
    const external = quality.tasks!.find((check) => check.external === "arith")!;
    expect(external).toMatchObject({
      method: "mcnemar",
      prompts: 200,
      verdict: "regression",
      inFamily: true,
    });
    const greedy = quality.greedy!.find((check) => check.cell === "greedy")!;
    expect(greedy.verdict).toBe("regression");
    expect(greedy.candidate.changedShare).toBeGreaterThan(0.1);
    const length = quality.guards.find((c) => c.cell === "greedy" && c.metric === "output_tokens_mean")!;
    expect(length.verdict).toBe("regression");
    expect(length.candidate!).toBeLessThan(length.baseline! * 0.9);
    // One family: the task test and the tested guards; the quality cells' speed checks are advisory.
    const family = verdict.settings.gatedFamily!.regression;
    expect(family.task).toBe(2);
    expect(family.guard).toBeGreaterThan(0);
    expect(family.speed).toBe(0);
    expect(family.total).toBe(family.task + family.guard);
    expect(length.inFamily).toBe(true);
    const report = readFileSync(join(dir, "cmp/report.md"), "utf8");
    for (const section of ["### Quality guards", "### Greedy outputs", "### Task accuracy"])
      expect(report).toContain(section);
    expect(report).toContain(`gated family of ${family.total} tests`);
  }, 240_000);
});
