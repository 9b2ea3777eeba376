import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli } from "./helpers.js";

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

function config(budget: number): string {
  return `version: 1
server: { kind: sim, profile: noiseless, lifecycle: per-side, startup_timeout_s: 60 }
model: { name: sim-model }
cost: { server_start_s: 120 }
gate: { metrics: [output_throughput], budget_gpu_minutes: ${budget} }
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

/** "budget 20 GPU-minutes (...): 30 runs a side in starts of 10, ...; requests per run: a 19, b 19". */
function planOf(text: string): { runs: number; perStart: number; requests: Record<string, number> } {
  const line = text.split("\n").find((l) => l.includes("(gate.budget_gpu_minutes):"));
  if (!line) throw new Error(`no budget plan line in:\n${text}`);
  const match = /: (\d+) runs a side in starts of (\d+),.*requests per run: (.*)$/.exec(line);
  if (!match) throw new Error(`unreadable plan line: ${line}`);
  const requests = Object.fromEntries(
    match[3]!.split(", ").map((item) => {
      const [cell, count] = item.split(" ");
      return [cell!, Number(count)];
    }),
  );
  return { runs: Number(match[1]), perStart: Number(match[2]), requests };
}

describe("a budget per pull request through the CLI", () => {
  it("run measures the plan validate prints, and compare judges it under the budget", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-budget-"));
    writeFileSync(join(dir, "gate.yml"), config(20));
    const validated = await cli(["validate", "--config", "gate.yml"], { cwd: dir });
    expect(validated.code, validated.stderr).toBe(0);
    const planned = planOf(validated.stdout);
    expect(validated.stdout).toContain("| a |");
    expect(validated.stdout).toMatch(/decides 2 of 2 gated checks at \+10%/);

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
    const compared = await cli(
      [
        "compare",
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--config",
        "gate.yml",
        "--mode",
        "interleaved",
        "--out",
        "cmp",
      ],
      { cwd: dir },
    );
    const verdict = verdictFileSchema.parse(
      JSON.parse(readFileSync(join(dir, "cmp", "verdict.json"), "utf8")),
    );
    expect(compared.code, compared.stderr).toBe(0);
    expect(verdict.budget?.limitGpuMinutes).toBe(20);
    expect(verdict.budget?.plan?.runsPerSide).toBe(planned.runs);
    // One look, as planned: compare asks for no runs the budget did not buy.
    expect(verdict.nextLook).toBeNull();
    for (const check of verdict.comparisons.filter((c) => c.gated)) expect(check.budget).toBeDefined();
    expect(readFileSync(join(dir, "cmp", "report.md"), "utf8")).toMatch(
      /Budget:.*spent [\d.]+ of 20 GPU-minutes/,
    );
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
