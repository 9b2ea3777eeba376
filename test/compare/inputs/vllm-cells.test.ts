import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRuns } from "../../../src/compare/inputs/load.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { cli } from "../../cli/helpers.js";
import { vllmResult } from "../../metrics/vllm-fixtures.js";
import { noisyRuns, writeResultsDir } from "../fixtures.js";

/** Writes vLLM result files with these labels, each with its own start time and a little noise. */
async function vllmFiles(dir: string, labels: readonly (string | null)[]): Promise<string[]> {
  const files: string[] = [];
  for (const [i, label] of labels.entries()) {
    const file = join(dir, `vllm-${i}.json`);
    const factor = 1 + ((i * 7) % 5) / 200;
    await writeFile(
      file,
      JSON.stringify(
        vllmResult({
          label,
          date: `20261130-0415${String(i).padStart(2, "0")}`,
          p99_ttft_ms: 59.7 * factor,
          output_throughput: 256 / factor,
        }),
      ),
    );
    files.push(file);
  }
  return files;
}

describe("compare: vLLM result files are grouped into cells by label", () => {
  it("numbers each file within its cell, not among all files given", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-cells-"));
    const files = await vllmFiles(dir, ["short", "long", "short", "long", "short"]);
    const records = await loadRuns(files, "baseline");
    expect(records.map((r) => [r.cell, r.run])).toEqual([
      ["short", 0],
      ["long", 0],
      ["short", 1],
      ["long", 1],
      ["short", 2],
    ]);
  });

  it("compares labelled files cell by cell", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-cells-"));
    const base = await vllmFiles(dir, ["short", "long", "short", "long", "short", "long"]);
    const cand = await vllmFiles(await mkdtemp(join(tmpdir(), "vpg-cells-")), [
      "long",
      "short",
      "long",
      "short",
      "long",
      "short",
    ]);
    const result = await cli(
      ["compare", "--baseline", ...base, "--candidate", ...cand, "--format", "json", "--out", "o"],
      { cwd: dir },
    );
    expect(result.stderr).toBe("");
    const verdict = verdictFileSchema.parse(JSON.parse(result.stdout));
    expect(verdict.cells.map((c) => [c.name, c.baselineRuns, c.candidateRuns]).sort()).toEqual([
      ["long", 3, 3],
      ["short", 3, 3],
    ]);
  });

  it("refuses with exit 2, naming the files, when unlabelled files meet a directory of other cells", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-cells-"));
    const runs = [
      ...noisyRuns(3, { seed: 1, sd: 0.01, cell: "short" }),
      ...noisyRuns(3, { seed: 2, sd: 0.01, cell: "long" }),
    ];
    const baseline = await writeResultsDir(join(dir, "base"), runs);
    const cand = await vllmFiles(dir, [null, null, null]);
    const result = await cli(["compare", "--baseline", baseline, "--candidate", ...cand, "--out", "o"], {
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no cell in common");
    expect(result.stderr).toContain(`"default": ${cand.join(", ")}`);
    expect(result.stderr).toContain(join(baseline, "short", "run-0", "run.json"));
    expect(result.stderr).toContain('grouped into cells by their "label"');
    // Not the advice of a judged comparison.
    expect(result.stdout).not.toMatch(/more runs/);
  });

  it("keeps the per-cell verdict for two results directories without a common cell (cells renamed in the config)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-cells-"));
    await writeResultsDir(join(dir, "base"), [
      ...noisyRuns(3, { seed: 1, cell: "a" }),
      ...noisyRuns(3, { seed: 2, cell: "b" }),
    ]);
    await writeResultsDir(join(dir, "cand"), [
      ...noisyRuns(3, { seed: 3, cell: "c" }),
      ...noisyRuns(3, { seed: 4, cell: "d" }),
    ]);
    const result = await cli(
      ["compare", "--baseline", "base", "--candidate", "cand", "--format", "json", "--out", "o"],
      { cwd: dir },
    );
    expect(result.stderr).toBe("");
    const verdict = verdictFileSchema.parse(JSON.parse(result.stdout));
    expect(verdict.verdict).toBe("error");
    expect(verdict.cells.map((c) => c.status).sort()).toEqual([
      "missing-baseline",
      "missing-baseline",
      "missing-candidate",
      "missing-candidate",
    ]);
  });

  it("still pairs one differently named cell per side (a label naming the side)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-cells-"));
    const base = await vllmFiles(dir, ["main", "main", "main"]);
    const cand = await vllmFiles(await mkdtemp(join(tmpdir(), "vpg-cells-")), ["pr", "pr", "pr"]);
    const result = await cli(
      ["compare", "--baseline", ...base, "--candidate", ...cand, "--format", "json", "--out", "o"],
      { cwd: dir },
    );
    expect(result.code === 0 || result.code === 1).toBe(true);
    const verdict = verdictFileSchema.parse(JSON.parse(result.stdout));
    expect(verdict.cells.map((c) => c.name)).toEqual(["main"]);
  });
});

/**
 * A `vllm bench sweep serve -o DIR` output as vllm/benchmarks/sweep/serve.py (commit 0031557f) writes it:
 * DIR/<experiment>/<combination>/run=<n>.json per run (the `vllm bench serve` result with `run_number` and
 * the combination's parameters added), summary.json (the list of the combination's runs), warmup.json,
 * a `run=<n>.failure.json` for a failed run, and summary.csv in the experiment directory.
 */
async function sweepServeDir(root: string, scale: number): Promise<string> {
  const experiment = join(root, "20261201_120000");
  for (const rate of [1, 2, 4]) {
    const combination = join(experiment, `BENCH--request_rate=${rate}`);
    await mkdir(combination, { recursive: true });
    const runs = [0, 1].map((n) =>
      vllmResult({
        label: "chat",
        date: `20261201-12${rate}00${n}`,
        request_rate: rate,
        max_concurrency: null,
        request_throughput: rate * (n === 0 ? 1.01 : 0.99),
        p99_ttft_ms: scale * 60 * rate * (n === 0 ? 1.01 : 0.99),
        run_number: n,
      }),
    );
    for (const [n, run] of runs.entries())
      await writeFile(join(combination, `run=${n}.json`), JSON.stringify(run, null, 4));
    await writeFile(join(combination, "summary.json"), JSON.stringify(runs, null, 4));
    await writeFile(join(combination, "warmup.json"), JSON.stringify({ ...runs[0], num_prompts: 1 }));
    await writeFile(
      join(combination, "run=2.failure.json"),
      JSON.stringify({ run_number: 2, error_type: "CalledProcessError", error: "exit 1" }),
    );
  }
  await writeFile(join(experiment, "summary.csv"), ",run_number,request_rate\n");
  return root;
}

describe("compare: a `vllm bench sweep serve` directory", () => {
  it("reads its run=<n>.json files (not summary, warmup or failure files) and draws the sweep", async () => {
    const root = await mkdtemp(join(tmpdir(), "vpg-sweep-serve-"));
    const base = await sweepServeDir(join(root, "base"), 1);
    const cand = await sweepServeDir(join(root, "cand"), 1.3);
    const records = await loadRuns([base], "baseline");
    expect(records).toHaveLength(6);
    expect(records.every((r) => /run=\d\.json$/.test(r.source))).toBe(true);
    expect(records.map((r) => [r.cell, r.load?.targetRate])).toEqual(
      [1, 1, 2, 2, 4, 4].map((rate) => ["chat", rate]),
    );
    const out = join(root, "out");
    const result = await cli(["compare", "--baseline", base, "--candidate", cand, "--out", out]);
    expect(result.code, result.stderr).not.toBe(2);
    const verdict = verdictFileSchema.parse(JSON.parse(await readFile(join(out, "verdict.json"), "utf8")));
    const sweep = verdict.sweeps![0]!;
    expect(sweep.cell).toBe("chat");
    expect(sweep.curve.baseline.map((p) => [p.load, p.runs])).toEqual([
      [1, 2],
      [2, 2],
      [4, 2],
    ]);
    expect(sweep.curve.candidate[1]!.completedPerSecond).toBeCloseTo(2, 9);
    expect(verdict.warnings.join("\n")).toContain('cell "chat" has runs at 3 different loads');
    const html = await readFile(join(out, "report.html"), "utf8");
    expect(html).toContain("Load curves of the sweep");
  });
});
