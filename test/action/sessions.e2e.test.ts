import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { fanOutConfig, sessionConfig } from "../cli/session-config.js";
import { runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * A session cell through the action with the real runner, simulator and compare: the push to main records
 * a baseline of agent sessions (turns over a shared system prompt, tool calls, a reasoning model); the
 * PR's simulator steps 60% slower, and the gate fails on the gated session metrics, which the comment
 * names with their values and what they mean for users. Then the same for a cell whose sessions fan out
 * to sub-agent branches, against a PR whose simulator serializes them: the gated fan-out completion time.
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

/**
 * The push to main (commit `main`) records a baseline with `baseConfig`; then pull request `pr` (head
 * `head`, merge `merge`) is gated with `prConfig`: the PR job's result and its verdict.json.
 */
async function baselineThenGate(options: {
  runId: number;
  main: string;
  pr: number;
  head: string;
  merge: string;
  baseConfig: string;
  prConfig: string;
}) {
  const recorded = await runJobIn(
    job.environment(),
    {
      runId: options.runId,
      event: "push",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: options.main, before: sha("9") }),
      sha: options.main,
      ref: "refs/heads/main",
      config: options.baseConfig,
    },
    job.dependencies(),
  );
  expect(recorded.result.verdict, recorded.result.failureMessage ?? "").toBe("baseline-recorded");
  const pr = await runJobIn(
    job.environment(),
    {
      runId: options.runId + 1,
      ...pullRequestEvent(fake, {
        number: options.pr,
        baseSha: options.main,
        headSha: options.head,
        mergeSha: options.merge,
      }),
      config: options.prConfig,
      inputs: { mode: "gate" },
    },
    job.dependencies(),
  );
  const verdict = verdictFileSchema.parse(
    JSON.parse(await readFile(join(pr.result.resultsDir, "..", "compare", "verdict.json"), "utf8")),
  );
  return { pr, verdict };
}

describe("the action with a session cell", () => {
  it("records the sessions' baseline on main and fails the slower PR on its session metrics", async () => {
    const { pr, verdict } = await baselineThenGate({
      runId: 720,
      main: mainSha,
      pr: PR,
      head: sha("b"),
      merge: sha("c"),
      baseConfig: config(1),
      prConfig: config(1.6),
    });
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

  it("records a fan-out cell's baseline and fails the PR whose branches serialize", async () => {
    // The PR's simulator runs one sequence at a time: each fan-out's branches one after the other.
    const gate = `  metrics: [fan_out_completion_p95]
`;
    const { pr, verdict } = await baselineThenGate({
      runId: 730,
      main: sha("d"),
      pr: 44,
      head: sha("e"),
      merge: sha("f"),
      baseConfig: fanOutConfig(16, gate),
      prConfig: fanOutConfig(1, gate),
    });
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
    const comments = fake.commentsOn(44);
    expect(comments).toHaveLength(1);
    const comment = comments[0]!.body.replaceAll("\u00a0", " ");
    expect(comment).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| fanout \| Fan-out completion p95 ↓ \| [\d,]+ → [\d,]+ ms \|/,
    );
    // What it means for users: a longer wait for the slowest sub-agent of each fan-out.
    expect(comment).toMatch(/users wait [\d,.]+ m?s longer for a fan-out's slowest branch/);
    expect(pr.summary.replaceAll("\u00a0", " ")).toMatch(/\| Fan-out completion p50 ↓ \|.*\| advisory \|/);
  }, 240_000);
});
