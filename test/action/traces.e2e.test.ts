import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { traceConfig } from "../cli/trace-config.js";
import { runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * Trace cells through the action with the real runner, simulator and compare: the push to main records a
 * baseline of the four trace formats (Azure, BurstGPT, Mooncake, a column-mapped CSV), alternating the
 * endpoints, each replayed on its timestamps at a `rate` far above its own; the PR's simulator steps 2.5
 * times slower, and the gate fails on every trace cell, none of whose runs was excluded as client-bound.
 */

const job = useRealActionJob("action-traces-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 44;
const cells = [
  { format: "azure", endpoint: "completions" },
  { format: "burstgpt", endpoint: "chat" },
  { format: "mooncake", endpoint: "completions" },
  { format: "mapped", endpoint: "chat" },
] as const;
const config = (speedFactor: number) => traceConfig(speedFactor, cells);

describe("the action with trace cells", () => {
  it("records the traces' baseline on main and fails the slower PR in every trace cell", async () => {
    const recorded = await runJobIn(
      job.environment(),
      {
        runId: 730,
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
        runId: 731,
        ...pullRequestEvent(fake, { number: PR, baseSha: mainSha, headSha: sha("b"), mergeSha: sha("c") }),
        config: config(2.5),
        inputs: { mode: "gate" },
      },
      job.dependencies(),
    );
    const verdict = verdictFileSchema.parse(
      JSON.parse(await readFile(join(pr.result.resultsDir, "..", "compare", "verdict.json"), "utf8")),
    );
    const rows = JSON.stringify(
      verdict.comparisons
        .filter((entry) => entry.gated)
        .map((entry) => [entry.cell, entry.metric, entry.verdict, entry.ratio, entry.note]),
    );
    expect(pr.result.verdict, `${pr.summary}\n${rows}`).toBe("regression");
    expect(pr.result.failed).toBe(true);
    for (const { format, endpoint } of cells) {
      const tpot = verdict.comparisons.find(
        (entry) => entry.cell === `${format}-${endpoint}` && entry.metric === "tpot_p50",
      )!;
      expect(tpot.verdict, rows).toBe("regression");
    }
    const comments = fake.commentsOn(PR);
    expect(comments).toHaveLength(1);
    const comment = comments[0]!.body.replaceAll("\u00a0", " ");
    expect(comment).toContain("vllm-perf-gate: regression");
    expect(comment).toMatch(/\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| mapped-chat \| TPOT p50 ↓ \|/);
    expect(comment).not.toContain("client-bound");
  }, 300_000);
});
