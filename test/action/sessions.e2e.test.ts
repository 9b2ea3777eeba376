import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict-schema.js";
import { sessionConfig } from "../cli/session-config.js";
import { runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * A session cell through the action with the real runner, simulator and compare: the push to main records
 * a baseline of agent sessions (turns over a shared system prompt, tool calls, a reasoning model); the
 * PR's simulator steps 60% slower, and the gate fails on the gated session metrics, which the comment
 * names with their values and what they mean for users.
 */

const job = useRealActionJob("action-sessions-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 43;

const config = (speedFactor: number) =>
  sessionConfig(
    speedFactor,
    `  metrics: [session_duration_p95, session_goodput]
`,
  );

describe("the action with a session cell", () => {
  it("records the sessions' baseline on main and fails the slower PR on its session metrics", async () => {
    const recorded = await runJobIn(
      job.environment(),
      {
        runId: 720,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
        sha: mainSha,
        ref: "refs/heads/main",
        config: config(1),
      },
      job.dependencies(),
    );
    expect(recorded.result.verdict, recorded.result.failureMessage ?? "").toBe("baseline-recorded");

    const pr = await runJobIn(
      job.environment(),
      {
        runId: 721,
        ...pullRequestEvent(fake, { number: PR, baseSha: mainSha, headSha: sha("b"), mergeSha: sha("c") }),
        config: config(1.6),
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
        .filter((entry) => entry.metric.startsWith("session_") || entry.metric.startsWith("ttft_p95_depth"))
        .map((entry) => [entry.metric, entry.gated, entry.verdict, entry.ratio]),
    );
    expect(pr.result.verdict, `${pr.summary}\n${rows}`).toBe("regression");
    expect(pr.result.failed).toBe(true);
    for (const metric of ["session_duration_p95", "session_goodput"]) {
      expect(row(metric).gated, rows).toBe(true);
      expect(row(metric).verdict, rows).toBe("regression");
    }
    // The rest of the session metrics are measured on both sides and advisory.
    for (const metric of [
      "session_duration_p50",
      "session_throughput",
      "session_cache_hit_rate",
      "ttft_p95_depth_4_7",
    ]) {
      expect(row(metric).gated, rows).toBe(false);
      expect(row(metric).baseline, rows).not.toBeNull();
    }

    const comments = fake.commentsOn(PR);
    expect(comments).toHaveLength(1);
    // No-break spaces keep a value with its unit; read them as spaces.
    const comment = comments[0]!.body.replaceAll("\u00a0", " ");
    expect(comment).toContain("vllm-perf-gate: regression");
    expect(comment).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| agent \| Session duration p95 ↓ \| [\d,]+ → [\d,]+ ms \|/,
    );
    expect(comment).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| agent \| Session goodput ↑ \| [\d.]+ → [\d.]+ sessions\/s \|/,
    );
    // What it means for users: longer sessions, fewer good sessions per hour.
    expect(comment).toMatch(/users wait [\d,.]+ m?s longer for a whole session/);
    expect(comment).toMatch(/fewer sessions whose every turn met the SLOs per hour/);
    // The job summary carries the long form, the advisory session metrics in the cell's table.
    expect(pr.summary.replaceAll("\u00a0", " ")).toMatch(/\| TTFT p95 at turns 4-7 ↓ \|.*\| advisory \|/);
  }, 240_000);
});
