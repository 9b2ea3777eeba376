import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * A capacity cell through the action with the real runner, simulator and compare (docs/action.md,
 * "Capacity cells"): the push to main records a baseline whose capacity cell was searched over loads (on
 * to capacity.max_runs); the PR's simulator is 50% slower per step, its search finds a lower capacity,
 * and the gate fails on the capacity regression with the capacity section in the comment. Small sizes
 * keep it to about a minute on a loaded machine.
 */

const job = useRealActionJob("action-capacity-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 41;

function config(speedFactor: number): string {
  return `version: 1
server:
  kind: sim
  profile: small-gpu
  set: { max_num_seqs: 4, step_overhead_ms: 25, speed_factor: ${speedFactor} }
  startup_timeout_s: 120
model: { name: sim-model }
cells:
  - name: chat-cap
    dataset: { type: synthetic, input_tokens: 32, output_tokens: 8 }
    load: { type: rate, rate: 10 }
    size: { requests: 20 }
    warmup: { requests: 2 }
    slo: { ttft_ms: 300, e2el_ms: 450 }
    capacity: { percentile: p95, range: { min: 4, max: 40 }, precision: 0.2, initial_loads: 3 }
repeats: { min: 3, max: 8 }
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 100 }
cost: { gpu_hourly_usd: 2.5, gpus: 1 }
`;
}

const environment = job.environment;
const deps = job.dependencies;

/** The loads the runs of a cell directory ran at, in run order. */
async function loadsIn(cellDir: string): Promise<number[]> {
  const names = (await readdir(cellDir)).filter((name) => /^run-\d+$/.test(name));
  names.sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  const loads: number[] = [];
  for (const name of names) {
    const run = runFileSchema.parse(JSON.parse(await readFile(join(cellDir, name, "run.json"), "utf8")));
    loads.push(run.load.targetRate ?? Number.NaN);
  }
  return loads;
}

describe("the action with a capacity cell", () => {
  it("searches the capacity on both sides and fails the PR on the capacity regression", async () => {
    const recorded = await runJobIn(
      environment(),
      {
        runId: 700,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
        sha: mainSha,
        ref: "refs/heads/main",
        config: config(1),
      },
      deps(),
    );
    expect(recorded.result.verdict, recorded.result.failureMessage ?? "").toBe("baseline-recorded");
    // The baseline's capacity cell was searched: a geometric first pass from range.min, then more loads,
    // on to capacity.max_runs (twice repeats.max, 16): a stored baseline is searched once for every PR.
    const baseLoads = await loadsIn(join(recorded.result.resultsDir, "chat-cap"));
    expect(baseLoads[0]).toBe(4);
    expect(new Set(baseLoads).size).toBeGreaterThanOrEqual(3);
    expect(baseLoads.length, String(baseLoads)).toBe(16);

    const pr = await runJobIn(
      environment(),
      {
        runId: 701,
        ...pullRequestEvent(fake, { number: PR, baseSha: mainSha, headSha: sha("b"), mergeSha: sha("c") }),
        config: config(1.5),
        inputs: { mode: "gate" },
      },
      deps(),
    );
    const candidateLoads = await loadsIn(join(pr.result.resultsDir, "chat-cap"));
    expect(new Set(candidateLoads).size, pr.summary).toBeGreaterThanOrEqual(3);
    // The adaptive loop's later looks resume the search; they never renumber or overwrite its runs. At
    // most repeats.max (8) to the first look, and when that is undecided the second look refines it on
    // to capacity.max_runs (twice repeats.max, 16; docs/capacity.md).
    expect(candidateLoads.length).toBeLessThanOrEqual(16);
    expect(candidateLoads.length === 16 || candidateLoads.length <= 8, String(candidateLoads)).toBe(true);
    const verdictPath = join(pr.result.resultsDir, "..", "compare", "verdict.json");
    const verdict = verdictFileSchema.parse(JSON.parse(await readFile(verdictPath, "utf8")));
    const check = verdict.capacity?.[0];
    expect(check?.cell).toBe("chat-cap");
    expect(check?.baseline.bound).toBe("inside");
    expect(check?.candidate.bound).toBe("inside");
    // A 50% slower step lowers the capacity by about 1 - 1/1.5 = 33%.
    expect(check?.ratio ?? 1).toBeLessThan(0.85);
    expect(check?.verdict).toBe("regression");
    expect(pr.result.verdict).toBe("regression");
    expect(pr.result.failed).toBe(true);
    const comment = fake.commentsOn(PR)[0]?.body ?? "";
    // The first screen answers for both sides: requests per hour at the SLOs, the slowest users' wait.
    expect(comment).toContain("**Capacity at the SLOs**: chat-cap at p95 TTFT");
    expect(comment).toMatch(/\| chat-cap \| baseline \| [\d,]+ \| [\d.,]+ m?s \|/);
    expect(comment).toMatch(/\| {2}\| candidate \| [\d,]+ \(−[\d,]+, −\d+\.\d%\) \| [\d.,]+ m?s \|/);
  }, 240_000);
});
