import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict-schema.js";
import { fanOutConfig } from "../cli/session-config.js";
import { runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * A fan-out session cell through the action with the real runner, simulator and compare: the push to main
 * records a baseline of sessions whose turns fan out to sub-agent branches sent at once; the PR's
 * simulator runs one sequence at a time, so its branches serialize, and the gate fails on the gated
 * fan-out completion time, which the comment names with its values and what it means for users.
 */

const job = useRealActionJob("action-fan-out-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const mainSha = sha("d");
const PR = 44;

const config = (maxNumSeqs: number) =>
  fanOutConfig(
    maxNumSeqs,
    `  metrics: [fan_out_completion_p95]
`,
  );

describe("the action with a fan-out session cell", () => {
  it("records the fan-outs' baseline on main and fails the PR whose branches serialize", async () => {
    const recorded = await runJobIn(
      job.environment(),
      {
        runId: 730,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
        sha: mainSha,
        ref: "refs/heads/main",
        config: config(16),
      },
      job.dependencies(),
    );
    expect(recorded.result.verdict, recorded.result.failureMessage ?? "").toBe("baseline-recorded");

    const pr = await runJobIn(
      job.environment(),
      {
        runId: 731,
        ...pullRequestEvent(fake, { number: PR, baseSha: mainSha, headSha: sha("e"), mergeSha: sha("f") }),
        config: config(1),
        inputs: { mode: "gate" },
      },
      job.dependencies(),
    );
    const verdict = verdictFileSchema.parse(
      JSON.parse(await readFile(join(pr.result.resultsDir, "..", "compare", "verdict.json"), "utf8")),
    );
    const row = (metric: string) => verdict.comparisons.find((entry) => entry.metric === metric)!;
    const rows = JSON.stringify(
      verdict.comparisons
        .filter((entry) => entry.metric.startsWith("fan_out") || entry.metric.startsWith("session_"))
        .map((entry) => [entry.metric, entry.gated, entry.verdict, entry.ratio]),
    );
    expect(pr.result.verdict, `${pr.summary}\n${rows}`).toBe("regression");
    expect(pr.result.failed).toBe(true);
    expect(row("fan_out_completion_p95")).toMatchObject({ gated: true, verdict: "regression" });
    // The rest is measured on both sides and advisory: the p50 and the sessions' own metrics.
    for (const metric of ["fan_out_completion_p50", "session_duration_p95"]) {
      expect(row(metric).gated, rows).toBe(false);
      expect(row(metric).baseline, rows).not.toBeNull();
      expect(row(metric).candidate!, rows).toBeGreaterThan(row(metric).baseline!);
    }

    const comments = fake.commentsOn(PR);
    expect(comments).toHaveLength(1);
    // No-break spaces keep a value with its unit; read them as spaces.
    const comment = comments[0]!.body.replaceAll("\u00a0", " ");
    expect(comment).toContain("vllm-perf-gate: regression");
    expect(comment).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| fanout \| Fan-out completion p95 ↓ \| [\d,]+ → [\d,]+ ms \|/,
    );
    // What it means for users: a longer wait for the slowest sub-agent of each fan-out.
    expect(comment).toMatch(/users wait [\d,.]+ m?s longer for a fan-out's slowest branch/);
    // The job summary carries the long form, the advisory p50 in the cell's table.
    expect(pr.summary.replaceAll("\u00a0", " ")).toMatch(/\| Fan-out completion p50 ↓ \|.*\| advisory \|/);
  }, 240_000);
});
