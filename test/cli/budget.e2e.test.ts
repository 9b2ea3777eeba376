import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli, compareSides } from "./helpers.js";

/**
 * Under gate.budget_gpu_minutes the plan validate prints is the plan `run` measures (runs per side,
 * requests per run of every cell), compare judges the runs under that budget, and a budget that cannot
 * measure every cell is an error naming the file and the field before anything runs (docs/action.md,
 * "Choosing a budget").
 */
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * The gate's config at a budget; `startBound`: a runner whose throughput moves 3% between server starts
 * and 0.2% between runs, with 30-second starts, where every run on a start of its own buys the most.
 */
function config(budget: number, startBound = false): string {
  const prior = startBound ? ", noise_prior: { throughput: { start_sd: 0.03, run_sd: 0.002 } }" : "";
  return `version: 1
server: { kind: sim, profile: noiseless, lifecycle: per-side, startup_timeout_s: 60 }
model: { name: sim-model }
cost: { server_start_s: ${startBound ? 30 : 120} }
gate: { metrics: [output_throughput], budget_gpu_minutes: ${budget}${prior} }
cells:
  - name: a
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 4 }
    warmup: { requests: 40 }
  - name: b
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 4 }
    warmup: { requests: 40 }
# A shared machine: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000, max_server_lateness_ms: 1000 }
`;
}

/**
 * "budget 20 GPU-minutes (...): 30 runs a side in starts of 10, ...; requests per run: a 19, b 19", or
 * "...: 4 runs a side, each run on a start of its own, ..." (perStart "own").
 */
function planOf(text: string): { runs: number; perStart: string; requests: Record<string, number> } {
  const line = text.split("\n").find((l) => l.includes("(gate.budget_gpu_minutes):"));
  if (!line) throw new Error(`no budget plan line in:\n${text}`);
  const match =
    /: (\d+) runs a side(?: in starts of (\d+)|, each run on a start of (its own)),.*requests per run: (.*)$/.exec(
      line,
    );
  if (!match) throw new Error(`unreadable plan line: ${line}`);
  const requests = Object.fromEntries(
    match[4]!.split(", ").map((item) => {
      const [cell, count] = item.split(" ");
      return [cell!, Number(count)];
    }),
  );
  return { runs: Number(match[1]), perStart: match[2] ?? "own", requests };
}

/**
 * Writes the config, takes validate's plan, measures both sides with `run` (the same plan printed, each
 * cell's runs at the planned requests) and judges them with `compare` under the budget (one look).
 */
async function measureAsValidated(
  text: string,
): Promise<{ planned: ReturnType<typeof planOf>; validated: string }> {
  const budget = Number(/budget_gpu_minutes: (\d+)/.exec(text)![1]);
  dir = mkdtempSync(join(tmpdir(), "vpg-budget-"));
  writeFileSync(join(dir, "gate.yml"), text);
  const validated = await cli(["validate", "--config", "gate.yml"], { cwd: dir });
  expect(validated.code, validated.stderr).toBe(0);
  const planned = planOf(validated.stdout);
  expect(validated.stdout).toContain("| a |");

  const sides = ["base", "cand"] as const;
  for (const side of sides) {
    const run = await cli(
      ["run", "--config", "gate.yml", "--out", side, "--side", side === "base" ? "baseline" : "candidate"],
      { cwd: dir },
    );
    expect(run.code, run.stderr).toBe(0);
    // The same plan, printed where the runs are measured.
    expect(planOf(run.stderr)).toEqual(planned);
    for (const cell of ["a", "b"]) {
      const runs = readdirSync(join(dir, side, cell)).filter((name) => name.startsWith("run-"));
      expect(runs).toHaveLength(planned.runs);
      const first = runFileSchema.parse(
        JSON.parse(readFileSync(join(dir, side, cell, "run-0", "run.json"), "utf8")),
      );
      expect(first.requests.total).toBe(planned.requests[cell]);
    }
  }
  const { compare: compared, verdict } = await compareSides(dir, "gate.yml");
  expect(compared.code, compared.stderr).toBe(0);
  expect(verdict.budget?.limitGpuMinutes).toBe(budget);
  expect(verdict.budget?.plan?.runsPerSide).toBe(planned.runs);
  // One look, as planned: compare asks for no runs the budget did not buy.
  expect(verdict.nextLook).toBeNull();
  for (const check of verdict.comparisons.filter((c) => c.gated)) expect(check.budget).toBeDefined();
  expect(readFileSync(join(dir, "cmp", "report.md"), "utf8")).toMatch(
    new RegExp(`Budget:.*spent [\\d.]+ of ${budget} GPU-minutes`),
  );
  return { planned, validated: validated.stdout };
}

describe("a budget per pull request through the CLI", () => {
  it("run measures the plan validate prints, and compare judges it under the budget", async () => {
    const { planned, validated } = await measureAsValidated(config(20));
    expect(validated).toMatch(/decides 2 of 2 gated checks at \+10%/);
    expect(planned.perStart).not.toBe("own");
  }, 240_000);

  it("a plan of a start per run: run gives every run a server start of its own, as validate printed", async () => {
    const { planned } = await measureAsValidated(config(10, true));
    expect(planned.perStart).toBe("own");
    for (const side of ["base", "cand"]) {
      // One start per run, shared by the run's two cells (the per-side lifecycle): as many starts as runs.
      const starts = new Set(
        ["a", "b"].flatMap((cell) =>
          Array.from({ length: planned.runs }, (_, run) => {
            const record = runFileSchema.parse(
              JSON.parse(readFileSync(join(dir!, side, cell, `run-${run}`, "run.json"), "utf8")),
            );
            return record.serverStart!.id;
          }),
        ),
      );
      expect(starts.size).toBe(planned.runs);
    }
    const verdict = verdictFileSchema.parse(
      JSON.parse(readFileSync(join(dir!, "cmp", "verdict.json"), "utf8")),
    );
    expect(verdict.budget?.plan).toMatchObject({ runsPerStart: 1, startEachGroup: true });
  }, 240_000);

  it("a budget that cannot measure every cell stops run before any server starts, naming file and field", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-budget-"));
    writeFileSync(join(dir, "gate.yml"), config(1));
    const run = await cli(["run", "--config", "gate.yml", "--out", "out"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /gate\.yml: gate\.budget_gpu_minutes: 1 GPU-minutes cannot measure 3 runs a side/,
    );
    expect(run.stderr).toMatch(/the least: \d+ GPU-minutes/);
    expect(readdirSync(dir)).not.toContain("out");
  });

  it("validate --budget prints the per-cell table and the set the budget decides", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-budget-"));
    writeFileSync(join(dir, "gate.yml"), config(20).replace(", budget_gpu_minutes: 20", ""));
    const validated = await cli(["validate", "--config", "gate.yml", "--budget", "40"], { cwd: dir });
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stdout).toMatch(/budget 40 GPU-minutes per pull request/);
    expect(validated.stdout).toMatch(/\| a \| [\d.]+ \| [\d.]+ \| \+[\d.]+% \|/);
    expect(validated.stdout).toMatch(/decides every check of: a, b|decides every check of: b, a/);
    const bad = await cli(["validate", "--config", "gate.yml", "--budget=-3"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--budget expects GPU-minutes > 0/);
  });
});
