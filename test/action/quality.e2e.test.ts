import { describe, expect, it } from "vitest";
import { runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * The quality checks through the action with the real runner and compare (src/action/default-dependencies.ts)
 * against the simulator: main records a baseline of a tasks cell, then a PR whose simulator answers fewer
 * tasks right (`task_accuracy` lowered, the stand-in for a quantisation that makes the model worse while it
 * stays as fast) must fail with the task-accuracy regression in its PR comment, and a PR whose simulator
 * emits garbage to max_tokens on a share of prompts (`quality_garbage_share`, as the FP8 KV-cache bugs did)
 * must fail on the finish-reason guard. Main's baseline of the tasks cell is measured once per file, on first
 * use, so each case passes alone and in any order.
 */

const job = useRealActionJob("action-quality-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 41;

const config = (taskAccuracy: number, garbageShare = 0) => `version: 1
server:
  kind: sim
  profile: noiseless
  set:
    task_accuracy: ${taskAccuracy}
    quality_garbage_share: ${garbageShare}
model:
  name: test-model
cells:
  - name: tasks
    dataset: { type: tasks, count: 300 }
    load: { type: concurrency, concurrency: 8 }
    size: { requests: 300 }
    warmup: { requests: 0 }
repeats: { min: 2, max: 2, baseline: 2, block: 2 }
# The serving command is the thing under test (a quantisation flag would be, on vLLM).
gate: { allowed_differences: [server.command] }
`;

/** A greedy-output cell: the candidate's simulator answers a share of the prompts differently. */
const greedyConfig = (changedShare: number) => `version: 1
server:
  kind: sim
  profile: noiseless
  set:
    eos_mean_tokens: 30
    quality_changed_share: ${changedShare}
model:
  name: test-model
cells:
  - name: greedy
    dataset: { type: synthetic, input_tokens: { distribution: uniform, min: 8, max: 40 }, output_tokens: 48 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 120 }
    warmup: { requests: 0 }
quality:
  greedy: { cells: [greedy], logprobs: 1 }
repeats: { min: 2, max: 2, baseline: 2, block: 2 }
gate: { allowed_differences: [server.command] }
`;

const environment = job.environment;
const deps = job.dependencies;

let tasksBaseline: ReturnType<typeof runJobIn> | undefined;

/** Main's baseline of the tasks cell (run 700), answering 95% of the tasks right. */
const mainTasksBaseline = () =>
  (tasksBaseline ??= runJobIn(
    environment(),
    {
      runId: 700,
      event: "push",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
      sha: mainSha,
      ref: "refs/heads/main",
      config: config(0.95),
    },
    deps(),
  ));

describe("the action reports a quality regression the speed checks cannot see", () => {
  it("a PR whose simulator answers 80% of the tasks instead of 95% fails with the task regression in its comment", async () => {
    const baseline = await mainTasksBaseline();
    expect(baseline.result.verdict, baseline.result.failureMessage ?? "").not.toBe("error");
    const { result, outputs } = await runJobIn(
      environment(),
      {
        runId: 701,
        ...pullRequestEvent(fake, { number: PR, baseSha: mainSha, headSha: sha("b"), mergeSha: sha("c") }),
        config: config(0.8),
      },
      deps(),
    );
    const first = fake.commentsOn(PR).find((c) => c.user.login === "github-actions[bot]")?.body ?? "";
    expect(outputs.verdict, first).toBe("regression");
    expect(result.failed).toBe(true);
    const comment = fake.commentsOn(PR).find((c) => c.user.login === "github-actions[bot]")?.body ?? "";
    expect(comment).toMatch(/^## ❌ vllm-perf-gate: regression/);
    // In the first screen: the check, both sides' accuracy, the drop.
    expect(comment).toMatch(
      /\| 🔴\sregression \| tasks \| Task\saccuracy\s↑\s\(−2\spts\) \| 9\d\.\d%\s→\s[78]\d\.\d% \| −[12]\d\.\d\spts \|/,
    );
    // In its fold: 95% against 80% on 300 paired tasks, the discordant pairs all one way.
    expect(comment).toContain("<summary>Task accuracy of 1 check</summary>");
    expect(comment).toMatch(
      /\| 🔴 regression \| tasks \| 300 \| 9\d\.\d% [^|]*\| [78]\d\.\d% [^|]*\| −[12]\d\.\d pts \| [1-9]\d* \/ 0 \| −2 pts \| [^|]* \|/,
    );
  }, 240_000);

  it("a PR whose simulator answers 30% of the prompts with garbage up to max_tokens fails on the guard", async () => {
    const baseline = await mainTasksBaseline();
    expect(baseline.result.verdict, baseline.result.failureMessage ?? "").not.toBe("error");
    const { result, outputs } = await runJobIn(
      environment(),
      {
        runId: 702,
        ...pullRequestEvent(fake, {
          number: PR + 1,
          baseSha: mainSha,
          headSha: sha("d"),
          mergeSha: sha("e"),
        }),
        config: config(0.95, 0.3),
      },
      deps(),
    );
    const comment = fake.commentsOn(PR + 1).find((c) => c.user.login === "github-actions[bot]")?.body ?? "";
    expect(outputs.verdict, comment).toBe("regression");
    expect(result.failed).toBe(true);
    expect(comment).toMatch(
      /\| 🔴\sregression \| tasks \| Finished\sat\smax_tokens\s↓\s\(\+2\spts\) \| 0\.00%\s→\s[1-9]\d\.\d+% \| \+[1-9]\d\.\d\spts \|/,
    );
  }, 240_000);

  it("a PR whose simulator answers 30% of the greedy prompts differently fails on the greedy-output check", async () => {
    const base = sha("f");
    const baseline = await runJobIn(
      environment(),
      {
        runId: 703,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: base, before: mainSha }),
        sha: base,
        ref: "refs/heads/main",
        config: greedyConfig(0),
      },
      deps(),
    );
    expect(baseline.result.verdict, baseline.result.failureMessage ?? "").not.toBe("error");
    const { result, outputs } = await runJobIn(
      environment(),
      {
        runId: 704,
        ...pullRequestEvent(fake, { number: PR + 2, baseSha: base, headSha: sha("1"), mergeSha: sha("2") }),
        config: greedyConfig(0.3),
      },
      deps(),
    );
    const comment = fake.commentsOn(PR + 2).find((c) => c.user.login === "github-actions[bot]")?.body ?? "";
    expect(outputs.verdict, comment).toBe("regression");
    expect(result.failed).toBe(true);
    expect(comment).toMatch(
      /\| 🔴\sregression \| greedy \| Identical\sgreedy\soutputs\s↑\s\(quality\.greedy\) \| [\d.]+%\s→\s[\d.]+% \|/,
    );
    expect(comment).toContain("<summary>Greedy outputs of 1 cell against the baseline</summary>");
    expect(comment).toMatch(/of 120 outputs changed/);
  }, 240_000);
});
