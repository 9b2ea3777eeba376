import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type VerdictFile, verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import type { RunFile } from "../../../src/metrics/run-schema.js";
import { cli } from "../../cli/helpers.js";
import { vllmResult } from "../../metrics/vllm-fixtures.js";
import { noisyRuns, writeResultsDir } from "../fixtures.js";

/**
 * `compare` on inputs nobody vouched for: duplicated runs, internally
 * inconsistent result files, oversized inputs.
 */

async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), "vpg-untrusted-"));
  // A candidate 4% slower with 4 runs a side: not enough evidence to call it either way.
  await writeResultsDir(join(dir, "base"), noisyRuns(4, { seed: 11, sd: 0.03 }));
  await writeResultsDir(join(dir, "cand"), noisyRuns(4, { seed: 12, sd: 0.03, shift: 1.04 }));
  return dir;
}

async function compare(dir: string, args: string[], out: string) {
  const result = await cli(["compare", ...args, "--out", out, "--format", "none", "--mode", "interleaved"], {
    cwd: dir,
  });
  const verdict =
    result.code === 2
      ? null
      : verdictFileSchema.parse(JSON.parse(await readFile(join(dir, out, "verdict.json"), "utf8")));
  return { ...result, verdict };
}

/** What the evidence decides: everything but the warnings and the time. */
function decision(verdict: VerdictFile | null) {
  if (!verdict) throw new Error("no verdict");
  return {
    verdict: verdict.verdict,
    cells: verdict.cells,
    comparisons: verdict.comparisons,
    used: verdict.runs.used.length,
  };
}

describe("duplicated runs are counted once", () => {
  it("byte-identical copies of runs inside a cell are dropped with a note", async () => {
    const dir = await workspace();
    const clean = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out-clean");
    expect(clean.code, clean.stderr).not.toBe(2);
    for (let copy = 0; copy < 12; copy++) {
      const from = join(dir, "cand", "chat", `run-${copy % 4}`);
      await cp(from, join(dir, "cand", "chat", `run-${4 + copy}`), { recursive: true });
    }
    const duplicated = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out-dup");
    expect(decision(duplicated.verdict)).toEqual(decision(clean.verdict));
    expect(duplicated.verdict?.cells[0]?.candidateRuns).toBe(4);
    const notes = duplicated.verdict?.warnings.filter((w) => /duplicate/.test(w)) ?? [];
    expect(notes).toHaveLength(4);
    expect(notes[0]).toMatch(
      /^candidate: 3 duplicates of cell chat run-0 started .* \(.*cand\/chat\/run-0\/run\.json\) dropped, counted once: .*run-4\/run\.json/,
    );
    expect(await readFile(join(dir, "out-dup", "report.md"), "utf8")).toMatch(
      // Markdown-escaped: renders as "run-0".
      /3 duplicates of cell chat run-0/,
    );
  });

  it("a copied cell directory and a re-indented copy are duplicates too", async () => {
    const dir = await workspace();
    const clean = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out-clean");
    await cp(join(dir, "base", "chat"), join(dir, "base", "chat-copy"), { recursive: true });
    const run = JSON.parse(await readFile(join(dir, "base", "chat", "run-1", "run.json"), "utf8"));
    await mkdir(join(dir, "base", "chat", "run-9"));
    await writeFile(join(dir, "base", "chat", "run-9", "run.json"), JSON.stringify(run));
    const duplicated = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out-dup");
    expect(decision(duplicated.verdict)).toEqual(decision(clean.verdict));
    expect(duplicated.verdict?.warnings.filter((w) => /^baseline: .*duplicate/.test(w))).toHaveLength(4);
  });

  it("the same directory given twice counts once", async () => {
    const dir = await workspace();
    const clean = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out-clean");
    const twice = await compare(
      dir,
      ["--baseline", "base", "--candidate", "cand", "cand", "cand"],
      "out-twice",
    );
    expect(decision(twice.verdict)).toEqual(decision(clean.verdict));
    expect(twice.verdict?.warnings.some((w) => /candidate: 2 duplicates of cell chat run-3/.test(w))).toBe(
      true,
    );
  });

  it("the same run on both sides is refused (exit 2) naming both files", async () => {
    const dir = await workspace();
    await cp(join(dir, "base", "chat", "run-2"), join(dir, "cand", "chat", "run-7"), { recursive: true });
    const result = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /cand\/chat\/run-7\/run\.json: the same run \(cell chat run-2 started .*, identical content\) is on both sides, also as .*base\/chat\/run-2\/run\.json/,
    );
  });
});

/** Rewrites one run.json of a results directory through `edit`. */
async function editRun(dir: string, side: string, run: number, edit: (json: RunFile) => void) {
  const file = join(dir, side, "chat", `run-${run}`, "run.json");
  const json = JSON.parse(await readFile(file, "utf8")) as RunFile;
  edit(json);
  await writeFile(file, JSON.stringify(json, null, 2));
  return file;
}

describe("internally inconsistent result files are refused", () => {
  it("failed = 10 x total is exit 2 naming the file, the field and the invariant (it gave pass)", async () => {
    const dir = await workspace();
    // 1,200 requests, 12,000 failed: each field alone is a valid non-negative integer.
    const file = await editRun(dir, "cand", 1, (json) => {
      json.requests.failed = 10 * json.requests.total;
      json.requests.errorsByKind = { http_500: json.requests.failed };
    });
    const result = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}: inconsistent content\n  requests.total: 1200, but completed (1200) + failed (12000) = 13200 (expected equal)`,
    );
  });

  it("completed > total, error kinds or finish reasons that do not add up, more samples than requests", async () => {
    const cases: Array<[(json: RunFile) => void, RegExp]> = [
      [
        (json) => {
          json.requests.completed = json.requests.total + 5;
        },
        /requests\.total: 1200, but completed \(1205\) \+ failed \(0\) = 1205 \(expected equal\)/,
      ],
      [
        (json) => {
          json.requests.errorsByKind = { timeout: 7 };
        },
        /requests\.errorsByKind: adds up to 7, but failed is 0 \(expected equal\)/,
      ],
      [
        (json) => {
          json.requests.finishReasons = { length: 3 };
        },
        /requests\.finishReasons: adds up to 3, but completed is 1200 \(expected equal\)/,
      ],
      [
        (json) => {
          json.latency.ttft.count = 5000;
        },
        /latency\.ttft\.count: 5000 samples, more than the 1200 completed requests/,
      ],
      [
        (json) => {
          json.latency.e2el.p99 = 1;
        },
        /latency\.e2el\.p99: 1 is below p95 = .* \(percentiles never decrease\)/,
      ],
      [
        (json) => {
          json.latency.ttft.p50 = -3;
        },
        /latency\.ttft\.p50: -3 is negative/,
      ],
    ];
    for (const [edit, pattern] of cases) {
      const dir = await workspace();
      const file = await editRun(dir, "base", 0, edit);
      const result = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${file}: inconsistent content`);
      expect(result.stderr).toMatch(pattern);
    }
  });

  it("a vLLM result whose ttfts has 3 entries while latencies has 40 is exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-untrusted-"));
    const latencies = Array.from({ length: 40 }, (_, i) => 1 + i / 100);
    const result40 = vllmResult({
      num_prompts: 40,
      completed: 40,
      latencies,
      queue_times: latencies.map(() => 0),
    });
    await writeFile(join(dir, "base.json"), JSON.stringify(result40));
    const file = join(dir, "cand.json");
    await writeFile(file, JSON.stringify({ ...result40, ttfts: [0.05, 0.06, 0.07] }));
    const result = await compare(dir, ["--baseline", "base.json", "--candidate", "cand.json"], "out");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}: inconsistent content\n  ttfts: 3 entries, but latencies has 40 (per-request lists have one entry per request)`,
    );
  });
});

describe("compare applies the action's input size limits", () => {
  /** A valid run.json padded to about `mebibytes` MiB with a long note. */
  async function paddedRun(dir: string, side: string, run: number, mebibytes: number) {
    return editRun(dir, side, run, (json) => {
      json.flags.notes = ["x".repeat(Math.round(mebibytes * 1024 * 1024))];
    });
  }

  it("refuses a file over 16 MiB before reading it, naming the file, its size, the limit and the flag", async () => {
    const dir = await workspace();
    const file = await paddedRun(dir, "cand", 2, 17);
    const refused = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: 17\\.0 MiB \\(\\d+ bytes\\), more than the 16\\.0 MiB allowed for one result file \\(limit maxRunFileBytes; raise it with compare --max-file-mb\\)`,
      ),
    );
    expect(refused.stderr).not.toMatch(/at .*\.ts:\d+/);
    // The flag raises it: the same inputs compare.
    const raised = await compare(
      dir,
      ["--baseline", "base", "--candidate", "cand", "--max-file-mb", "32"],
      "out",
    );
    expect(raised.code, raised.stderr).not.toBe(2);
    expect(raised.verdict?.cells[0]?.candidateRuns).toBe(4);
  });

  it("bounds all inputs together with --max-total-mb, naming the file that crosses it", async () => {
    const dir = await workspace();
    for (const run of [0, 1, 2]) await paddedRun(dir, "base", run, 0.4);
    const refused = await compare(
      dir,
      ["--baseline", "base", "--candidate", "cand", "--max-total-mb", "1"],
      "out",
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /base\/chat\/run-2\/run\.json: the inputs reach 1\.\d\d MiB with this file, more than the 1\.00 MiB allowed for all result files together \(limit maxTotalBytes; raise it with compare --max-total-mb\)/,
    );
    const usage = await compare(
      dir,
      ["--baseline", "base", "--candidate", "cand", "--max-file-mb", "0"],
      "out",
    );
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--max-file-mb expects a size in MiB above 0, got 0/);
  });

  it("refuses a path that is not a regular file (a FIFO would block the read forever)", async () => {
    const dir = await workspace();
    const fifo = join(dir, "pipe.json");
    execFileSync("mkfifo", [fifo]);
    const result = await compare(dir, ["--baseline", "base", "--candidate", "pipe.json"], "out");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${fifo}: not a regular file (expected a result JSON file)`);
  });
});

describe("duplicated vLLM results", () => {
  it("a vLLM result copied under another name counts once, on both sides it is refused", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-untrusted-"));
    await mkdir(join(dir, "base"));
    await mkdir(join(dir, "cand"));
    for (let i = 0; i < 3; i++) {
      const result = vllmResult({ date: `20261130-04150${i}`, p99_ttft_ms: 59.7 + i });
      await writeFile(join(dir, "base", `r${i}.json`), JSON.stringify(result));
      await writeFile(
        join(dir, "cand", `r${i}.json`),
        JSON.stringify({ ...result, date: `20261130-05150${i}` }),
      );
    }
    await cp(join(dir, "cand", "r1.json"), join(dir, "cand", "r1-copy.json"));
    const result = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
    expect(result.code, result.stderr).not.toBe(2);
    expect(result.verdict?.cells[0]?.candidateRuns).toBe(3);
    expect(result.verdict?.warnings[0]).toMatch(
      /^candidate: 1 duplicate of cell default started 20261130-051501 .*r1-copy\.json\) dropped, counted once: .*r1\.json$/,
    );

    await cp(join(dir, "base", "r2.json"), join(dir, "cand", "r2-from-base.json"));
    const both = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /r2-from-base\.json: the same run .* is on both sides, also as .*base\/r2\.json/,
    );
  });
});

describe("deeply nested JSON", () => {
  it("a run.json nested a million levels deep is exit 2, not a stack overflow", async () => {
    const dir = await workspace();
    const file = join(dir, "cand", "chat", "run-0", "run.json");
    const json = JSON.parse(await readFile(file, "utf8"));
    const text = JSON.stringify({ ...json, fingerprint: { deep: null } });
    const depth = 1_000_000;
    await writeFile(file, text.replace('"deep":null', `"deep":${"[".repeat(depth)}${"]".repeat(depth)}`));
    const result = await compare(dir, ["--baseline", "base", "--candidate", "cand"], "out");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: nested deeper than 64 levels (limit maxJsonDepth`);
  });
});

describe("forged baselines: the work is bounded by the input limits", () => {
  // A generous ceiling for a loaded 2-core machine; without the limits these took minutes.
  const ceilingMs = 10_000;
  const keys = (count: number, value: string) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, `${value}${i}`]));

  async function timedCompare(dir: string, format = "none") {
    const started = performance.now();
    const result = await cli(
      ["compare", "--baseline", "base", "--candidate", "cand", "--out", "out", "--format", format],
      { cwd: dir },
    );
    return { ...result, ms: performance.now() - started };
  }

  it("six run.json files of 150,000 differing fingerprint keys are refused in seconds, naming the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-forged-keys-"));
    // Recorded-only fields (tool.*), so nothing short-cuts the comparison: each file about 4 MiB.
    await writeResultsDir(
      join(dir, "base"),
      noisyRuns(3, { seed: 1, fingerprint: { tool: keys(150_000, "a") } }),
    );
    await writeResultsDir(
      join(dir, "cand"),
      noisyRuns(3, { seed: 2, fingerprint: { tool: keys(150_000, "b") } }),
    );
    const result = await timedCompare(dir, "text");
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `${join(dir, "base", "chat", "run-0", "run.json")}: fingerprint: more than 10000 recorded conditions (limit maxFingerprintFields`,
    );
    expect(result.ms).toBeLessThan(ceilingMs);
  }, 120_000);

  it("5,000 differing keys under the limit: the report lists the first 100 and counts the rest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-many-keys-"));
    await writeResultsDir(
      join(dir, "base"),
      noisyRuns(3, { seed: 1, fingerprint: { tool: keys(5_000, "a") } }),
    );
    await writeResultsDir(
      join(dir, "cand"),
      noisyRuns(3, { seed: 2, fingerprint: { tool: keys(5_000, "b") } }),
    );
    const result = await timedCompare(dir, "text");
    expect(result.code, result.stderr).toBeLessThan(2);
    const report = await readFile(join(dir, "out", "report.md"), "utf8");
    expect(report).toContain(
      "… and 4900 more differ (the first 100 are listed; every one is in verdict.json).",
    );
    expect(result.ms).toBeLessThan(ceilingMs);
  }, 120_000);

  it("3,000 copies of three runs (run numbers changed) a side are refused in seconds, naming the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-forged-runs-"));
    for (const [side, seed] of [
      ["base", 1],
      ["cand", 2],
    ] as const) {
      const three = noisyRuns(3, { seed });
      await writeResultsDir(
        join(dir, side),
        Array.from({ length: 3000 }, (_, run) => ({ ...three[run % 3]!, run })),
      );
    }
    const result = await timedCompare(dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /base\/chat\/run-\d+\/run\.json: cell: the baseline has more than 1000 runs of cell "chat" \(limit maxRunsPerCell/,
    );
    expect(result.ms).toBeLessThan(ceilingMs);
  }, 300_000);
});
