import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { runCells } from "../../../src/app/run-cells.js";
import { settingsFromConfig } from "../../../src/compare/index.js";
import { readRunFile } from "../../../src/compare/inputs/load.js";
import type { RunRecord } from "../../../src/metrics/run-record.js";
import { externalTaskFileSchema } from "../../../src/runner/external-task.js";
import { baseUrlProvider } from "../../../src/server/base-url.js";
import { type RunningSimulator, startSimulator } from "../../../src/sim/index.js";
import { InputError } from "../../../src/util/errors.js";
import { noSecrets } from "../../job-outbound.js";
import { testConfig, tinyCell } from "../../runner/helpers/run-config.js";

const sims: RunningSimulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory with `lm_eval` on it: a wrapper around test/fixtures/bin/fake-lm-eval.mjs. */
function fakeLmEvalPath(): string {
  const bin = mkdtempSync(join(tmpdir(), "vpg-lm-eval-bin-"));
  dirs.push(bin);
  const script = resolve("test/fixtures/bin/fake-lm-eval.mjs");
  writeFileSync(join(bin, "lm_eval"), `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`);
  chmodSync(join(bin, "lm_eval"), 0o755);
  return `${bin}:${process.env.PATH ?? ""}`;
}

const lmEval = (...extra: string[]) => [
  "lm_eval",
  "--model",
  "local-completions",
  "--model_args",
  "model={model},base_url={base_url}",
  "--limit",
  "400",
  ...extra,
];

function configWith(external: Record<string, unknown>[]) {
  return testConfig([tinyCell("chat"), tinyCell("other")], {
    quality: { tasks: { external } },
    repeats: { min: 2, max: 2, baseline: 2, block: 2 },
  });
}

const paired = {
  name: "arith",
  cell: "chat",
  command: lmEval("--output_path", "{result_file}"),
  accuracy_path: "results.arith.exact_match,none",
  samples_path: "samples.arith",
  id_field: "doc_id",
  score_field: "exact_match",
};

async function measure(
  config: ReturnType<typeof configWith>,
  set: Record<string, number>,
  path = fakeLmEvalPath(),
): Promise<{ dir: string; records: () => Promise<RunRecord[]> }> {
  const sim = await startSimulator({ profile: "noiseless", set, model: "m" });
  sims.push(sim);
  const dir = mkdtempSync(join(tmpdir(), "vpg-external-"));
  dirs.push(dir);
  const result = await runCells({
    outbound: noSecrets,
    config,
    provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
    outDir: dir,
    baseDir: dir,
    runs: 2,
    env: { ...process.env, PATH: path },
  });
  return {
    dir,
    records: () => Promise.all(result.runs.map((run, i) => readRunFile(join(run.dir, "run.json"), i))),
  };
}

const compare = (config: ReturnType<typeof configWith>, baseline: RunRecord[], candidate: RunRecord[]) =>
  compareAndRender({
    baseline,
    candidate,
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date(0),
  });

describe("the external task-accuracy check (a fake lm_eval on PATH against the simulator)", () => {
  it("runs once per side after the cell's first run, pairs the samples, and finds 95% -> 85% a regression", async () => {
    const config = configWith([paired]);
    const base = await measure(config, { task_accuracy: 0.95 });
    // Run 0 of its cell only: not run 1, not the other cell.
    expect(existsSync(join(base.dir, "chat", "run-0", "external-arith.json"))).toBe(true);
    expect(existsSync(join(base.dir, "chat", "run-1", "external-arith.json"))).toBe(false);
    expect(existsSync(join(base.dir, "other", "run-0", "external-arith.json"))).toBe(false);
    const file = externalTaskFileSchema.parse(
      JSON.parse(readFileSync(join(base.dir, "chat", "run-0", "external-arith.json"), "utf8")),
    );
    // The templates are recorded, not the server's address.
    expect(file.command).toContain("model={model},base_url={base_url}");
    expect(JSON.stringify(file)).not.toContain("127.0.0.1");
    expect(file.count).toBe(400);
    expect(file.samples).toHaveLength(400);
    expect(file.accuracy).toBeGreaterThan(0.9);
    const cand = await measure(config, { task_accuracy: 0.85 });
    const { verdict, reportMarkdown } = compare(config, await base.records(), await cand.records());
    const check = verdict.quality!.tasks!.find((c) => c.external === "arith")!;
    expect(check.method).toBe("mcnemar");
    expect(check.prompts).toBe(400);
    expect(check.onlyBaseline).toBeGreaterThan(check.onlyCandidate);
    expect(check.verdict).toBe("regression");
    expect(verdict.verdict).toBe("regression");
    // The cell and the task's name, escaped like every name in the report.
    expect(reportMarkdown).toMatch(/\| 🔴 regression \| chat: external arith \| 400 \|/);
  }, 120_000);

  it("the same model passes the paired check", async () => {
    const config = configWith([paired]);
    const base = await measure(config, {});
    const cand = await measure(config, { speed_factor: 0.9 });
    const check = compare(config, await base.records(), await cand.records()).verdict.quality!.tasks![0]!;
    expect(check.onlyBaseline + check.onlyCandidate).toBe(0);
    expect(check.verdict).toBe("within-tolerance");
  }, 120_000);

  it("without per-sample results: each side's accuracy and n on stdout, the unpaired two-proportion test", async () => {
    const config = configWith([
      {
        name: "agg",
        cell: "chat",
        command: lmEval(),
        accuracy_path: "results.arith.exact_match,none",
        count_path: "n-samples.arith.effective",
      },
    ]);
    const base = await measure(config, { task_accuracy: 0.95 });
    const cand = await measure(config, { task_accuracy: 0.8 });
    const { verdict, reportMarkdown } = compare(config, await base.records(), await cand.records());
    const check = verdict.quality!.tasks![0]!;
    expect(check.method).toBe("two-proportion");
    // Each side's samples in the Tasks column, "unpaired" for the discordant pairs, and the test named.
    expect(reportMarkdown).toMatch(
      /\| chat: external agg \| 400 \/ 400 \| [^|]+\| [^|]+\| [^|]+\| unpaired \|/,
    );
    expect(reportMarkdown).toContain("one-sided two-proportion z-test");
    expect(check.baseline.n).toBe(400);
    expect(check.candidate.n).toBe(400);
    expect(check.verdict).toBe("regression");
  }, 120_000);

  it.each([
    [
      "the command fails",
      { command: lmEval("--fail") },
      /exited with code 1: Traceback[\s\S]*ValueError: fake failure/,
    ],
    [
      "it prints no JSON",
      { command: lmEval("--no-json") },
      /printed no JSON on its standard output .*got: \| {2}Tasks/,
    ],
    [
      "the accuracy path is missing in the JSON",
      { accuracy_path: "results.arith.acc,none" },
      /accuracy_path results\.arith\.acc,none: no key "acc,none" at results\.arith of the JSON result \(keys there: alias, exact_match,none\)/,
    ],
    [
      "the command outlives its time limit",
      { command: lmEval("--sleep", "30"), timeout_s: 1 },
      /did not finish within 1 s \(quality\.tasks\.external\[\]\.timeout_s\) and was stopped/,
    ],
    [
      "the command is not on PATH",
      { command: ["lm_eval_missing", "--model_args", "base_url={base_url}"] },
      /quality\.tasks\.external "arith" \(command `lm_eval_missing --model_args base_url=\{base_url\}`\): could not start: spawn lm_eval_missing ENOENT/,
    ],
  ])(
    "%s: a clear error naming the command after every run is measured and kept",
    async (_, override, message) => {
      const config = configWith([{ ...paired, ...override }]);
      const sim = await startSimulator({ profile: "noiseless", model: "m" });
      sims.push(sim);
      const dir = mkdtempSync(join(tmpdir(), "vpg-external-"));
      dirs.push(dir);
      const run = runCells({
        outbound: noSecrets,
        config,
        provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
        outDir: dir,
        baseDir: dir,
        runs: 2,
        env: { ...process.env, PATH: fakeLmEvalPath() },
      });
      const error = await run.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(/^quality\.tasks\.external "arith" \(command `lm_eval/);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(`4 run(s) measured and kept in ${dir}`);
      for (const cell of ["chat", "other"])
        for (const k of [0, 1]) expect(existsSync(join(dir, cell, `run-${k}`, "run.json"))).toBe(true);
      expect(existsSync(join(dir, "chat", "run-0", "external-arith.json"))).toBe(false);
    },
    120_000,
  );

  it("an interrupt stops the command at once; the runs are kept and no bad input is reported", async () => {
    const config = configWith([{ ...paired, command: lmEval("--sleep", "60") }]);
    const sim = await startSimulator({ profile: "noiseless", model: "m" });
    sims.push(sim);
    const dir = mkdtempSync(join(tmpdir(), "vpg-external-"));
    dirs.push(dir);
    const interrupt = new AbortController();
    const lines: string[] = [];
    const started = Date.now();
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider: baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 2,
      env: { ...process.env, PATH: fakeLmEvalPath() },
      signal: interrupt.signal,
      progress: {
        update() {},
        message: (line) => {
          lines.push(line);
          if (line.includes('external task "arith" against'))
            setTimeout(() => interrupt.abort("SIGINT"), 300);
        },
      },
    });
    // Well before the command's 60 s: it was stopped, not waited for.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.runs.map((run) => `${run.cell}/${run.run}`)).toEqual(["chat/0"]);
    expect(existsSync(join(dir, "chat", "run-0", "run.json"))).toBe(true);
    expect(
      lines.some(
        (line) => line.includes('quality.tasks.external "arith"') && line.includes("stopped by SIGINT"),
      ),
    ).toBe(true);
  }, 60_000);
});
