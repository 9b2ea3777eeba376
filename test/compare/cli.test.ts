import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandListFlags } from "../../src/cli/commands/compare.js";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { vllmResult } from "../metrics/vllm-fixtures.js";
import { makeRunFile, noisyRuns, writeResultsDir } from "./fixtures.js";

function fakeIo(cwd: string, isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text), isTTY },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    cwd,
  };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}

async function workspace(candidateShift: number) {
  const dir = await mkdtemp(join(tmpdir(), "vpg-compare-"));
  const baseline = await writeResultsDir(join(dir, "base"), noisyRuns(5, { seed: 1, sd: 0.01 }));
  const candidate = await writeResultsDir(
    join(dir, "cand"),
    noisyRuns(5, { seed: 2, sd: 0.01, shift: candidateShift }),
  );
  return { dir, baseline, candidate };
}

describe("vllm-perf-gate compare", () => {
  it("exits 0 when the gate passes and writes verdict.json and report.md", async () => {
    const { dir } = await workspace(1);
    const t = fakeIo(dir);
    // The synthetic runs record no server start and their noise is drawn run by run: each its own start.
    const code = await runCli(
      [
        ...["compare", "--baseline", "base", "--candidate", "cand", "--out", "out", "--mode", "interleaved"],
        "--fresh-starts",
      ],
      t.io,
    );
    expect(t.stderr()).toBe("");
    expect(code).toBe(0);
    expect(t.stdout()).toMatch(/^vllm-perf-gate: PASS/);
    expect(t.stdout()).toMatch(/Wrote .*verdict\.json, .*report\.md, .*comment\.md and .*report\.html/);
    const verdict = verdictFileSchema.parse(
      JSON.parse(await readFile(join(dir, "out", "verdict.json"), "utf8")),
    );
    expect(verdict.verdict).toBe("pass");
    expect(verdict.mode).toBe("interleaved");
    expect(await readFile(join(dir, "out", "report.md"), "utf8")).toMatch(/^## ✅ vllm-perf-gate: pass/);
  });

  it("takes --fresh-starts, the declaration that runs without a recorded server start were fresh starts", async () => {
    const { dir } = await workspace(1);
    const args = ["compare", "--baseline", "base", "--candidate", "cand", "--mode", "interleaved"];
    // Without it the runs of each directory are taken as one start a side: the starts' prior noise
    // cannot be told from a change within the tolerance, and the verdict says why.
    const shared = fakeIo(dir);
    expect(await runCli([...args, "--out", "shared", "--format", "json"], shared.io)).toBe(0);
    const sharedVerdict = verdictFileSchema.parse(JSON.parse(shared.stdout()));
    expect(sharedVerdict.verdict).toBe("inconclusive");
    expect(sharedVerdict.warnings.join("\n")).toMatch(/did not record the server start.*--fresh-starts/s);
    const fresh = fakeIo(dir);
    expect(await runCli([...args, "--out", "fresh", "--format", "json", "--fresh-starts"], fresh.io)).toBe(0);
    expect(verdictFileSchema.parse(JSON.parse(fresh.stdout())).verdict).toBe("pass");
    const help = fakeIo(dir);
    await runCli(["compare", "--help"], help.io);
    expect(help.stdout()).toMatch(
      /--fresh-starts +declare that every run whose file records no server start/,
    );
  });

  it("exits 1 on a regression and records the baseline provenance", async () => {
    const { dir } = await workspace(1.2);
    const t = fakeIo(dir);
    const code = await runCli(
      [
        "compare",
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--out",
        "out",
        "--format",
        "markdown",
        "--baseline-commit",
        "abc1234",
        "--baseline-run-id",
        "42",
      ],
      t.io,
    );
    expect(code).toBe(1);
    expect(t.stdout()).toMatch(/^## ❌ vllm-perf-gate: regression/);
    expect(t.stdout()).toContain("Baseline: commit abc1234 · run 42");
    expect(t.stdout()).toContain("Mode: stored baseline");
  });

  it("reads --history sessions for the stored drift estimate, not as baseline runs", async () => {
    const { dir } = await workspace(1);
    for (const s of [1, 2, 3])
      await writeResultsDir(join(dir, `h${s}`), noisyRuns(5, { seed: 20 + s, sd: 0.01 }));
    const t = fakeIo(dir);
    const code = await runCli(
      [
        "compare",
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--history",
        "h1",
        "h2",
        "h3",
        "--out",
        "out",
        "--format",
        "json",
      ],
      t.io,
    );
    expect(t.stderr()).toBe("");
    expect(code).toBe(0);
    const verdict = verdictFileSchema.parse(JSON.parse(t.stdout()));
    expect(verdict.settings.sessionDriftEstimates.ttft_p95).toMatchObject({ source: "history", sessions: 4 });
    expect(verdict.cells[0]!.baselineRuns).toBe(5);
  });

  it("accepts several paths after one flag and vLLM result files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-compare-"));
    const files: string[] = [];
    for (const [i, factor] of [1, 1.01, 0.99, 1.02, 1, 0.98].entries()) {
      const file = join(dir, `r${i}.json`);
      files.push(file);
      await writeFile(
        file,
        JSON.stringify(
          // Each run its own start time: identical files would be one run on both sides (refused).
          vllmResult({
            label: "chat",
            date: `20261130-04150${i}`,
            p99_ttft_ms: 59.7 * factor,
            output_throughput: 256 / factor,
          }),
        ),
      );
    }
    const t = fakeIo(dir);
    const code = await runCli(
      [
        "compare",
        "--baseline",
        ...files.slice(0, 3),
        "--candidate",
        ...files.slice(3),
        "--format",
        "json",
        "--out",
        "o",
      ],
      t.io,
    );
    const verdict = verdictFileSchema.parse(JSON.parse(t.stdout()));
    expect(code === 0 || code === 1).toBe(true);
    expect(verdict.cells.map((c) => [c.name, c.baselineRuns, c.candidateRuns])).toEqual([["chat", 3, 3]]);
    expect(verdict.comparisons.find((c) => c.metric === "ttft_p99")).toBeDefined();
    expect(expandListFlags(["--baseline", "a", "b", "--candidate", "c", "--out", "x"])).toEqual([
      "--baseline",
      "a",
      "--baseline",
      "b",
      "--candidate",
      "c",
      "--out",
      "x",
    ]);
  });

  it("exits 2 naming the file and the field of a bad run.json", async () => {
    const { dir, candidate } = await workspace(1);
    const broken = { ...makeRunFile({ run: 0 }), requests: { total: 10, completed: -1 } };
    const file = join(candidate, "chat", "run-0", "run.json");
    await writeFile(file, JSON.stringify(broken));
    const t = fakeIo(dir);
    const code = await runCli(["compare", "--baseline", "base", "--candidate", "cand"], t.io);
    expect(code).toBe(2);
    expect(t.stderr()).toContain(`${file}: invalid content`);
    expect(t.stderr()).toMatch(/requests\.completed: /);
  });

  it("exits 2 for an unknown schemaVersion, bad JSON, a missing path or a non-result file", async () => {
    const { dir, candidate } = await workspace(1);
    const file = join(candidate, "chat", "run-1", "run.json");
    await writeFile(file, JSON.stringify({ ...makeRunFile(), schemaVersion: 7 }));
    let t = fakeIo(dir);
    expect(await runCli(["compare", "--baseline", "base", "--candidate", "cand"], t.io)).toBe(2);
    expect(t.stderr()).toContain(
      `${file}: schemaVersion: expected 1 (the run.json version this tool reads), got 7`,
    );
    await writeFile(file, "{ not json");
    t = fakeIo(dir);
    expect(await runCli(["compare", "--baseline", "base", "--candidate", "cand"], t.io)).toBe(2);
    expect(t.stderr()).toContain(`${file}: not valid JSON`);
    t = fakeIo(dir);
    expect(await runCli(["compare", "--baseline", "nowhere", "--candidate", "cand"], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/nowhere: no such file or directory/);
    const other = join(dir, "other.json");
    await writeFile(other, JSON.stringify({ hello: 1 }));
    t = fakeIo(dir);
    expect(await runCli(["compare", "--baseline", other, "--candidate", "cand"], t.io)).toBe(2);
    expect(t.stderr()).toContain(`${other}: not a run result`);
  });

  it("exits 2 with usage for bad flags and reads the gate from --config", async () => {
    const { dir } = await workspace(1.2);
    let t = fakeIo(dir);
    expect(await runCli(["compare", "--candidate", "cand"], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/--baseline is required/);
    t = fakeIo(dir);
    expect(
      await runCli(["compare", "--baseline", "base", "--candidate", "cand", "--mode", "weekly"], t.io),
    ).toBe(2);
    expect(t.stderr()).toMatch(/--mode expects stored or interleaved/);
    t = fakeIo(dir);
    expect(await runCli(["compare", "--help"], t.io)).toBe(0);
    expect(t.stdout()).toMatch(/^Usage: vllm-perf-gate compare/);
    // A config that never fails turns the regression into exit 0.
    await writeFile(
      join(dir, "gate.yml"),
      [
        "version: 1",
        "server: { kind: sim }",
        "model: { name: m }",
        "cells:",
        "  - name: chat",
        "    dataset: { type: synthetic, input_tokens: 10, output_tokens: 10 }",
        "    load: { type: concurrency, concurrency: 1 }",
        "    size: { requests: 10 }",
        "gate: { fail_on: never }",
      ].join("\n"),
    );
    t = fakeIo(dir);
    expect(
      await runCli(["compare", "--baseline", "base", "--candidate", "cand", "--config", "gate.yml"], t.io),
    ).toBe(0);
    expect(t.stdout()).toMatch(/REGRESSION/);
    await writeFile(join(dir, "bad.yml"), "version: 1\ngate: { tolerance: 7 }\n");
    t = fakeIo(dir);
    expect(
      await runCli(["compare", "--baseline", "base", "--candidate", "cand", "--config", "bad.yml"], t.io),
    ).toBe(2);
    expect(t.stderr()).toMatch(/bad\.yml/);
  });

  it("colours the terminal output only on a TTY", async () => {
    const { dir } = await workspace(1.2);
    const t = fakeIo(dir, true);
    await runCli(["compare", "--baseline", "base", "--candidate", "cand"], t.io);
    expect(t.stdout()).toContain("\u001b[31m");
  });
});
