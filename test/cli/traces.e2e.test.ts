import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import type { FileDatasetConfig } from "../../src/config/schema.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { requestRecordSchema } from "../../src/runner/request-schema.js";
import { readDatasetFile } from "../../src/workload/dataset-file.js";
import { traceArrivals } from "../../src/workload/sessions.js";
import { cli, compareSides } from "./helpers.js";
import { type TraceFormat, traceCells, traceConfig } from "./trace-config.js";

/**
 * Every trace format end to end against the simulator over HTTP, on both endpoints: the Azure LLM
 * inference trace, BurstGPT (its failed requests skipped, one model kept), a Mooncake trace with prefix
 * blocks and a CSV in columns of its own (sessions of several turns) read through a column mapping.
 * `validate` reads each file and describes its load by the trace's timestamps; `run` sends each session
 * on its trace timestamp (time_scale applied) at a `rate` of 1000/s that is not the target, so no run is
 * client-bound by the rate; `compare` against a candidate whose engine steps 2.5 times slower finds
 * the regression in every cell.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-traces-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const formats = Object.keys(traceCells) as TraceFormat[];
const cells = formats.flatMap((format) =>
  (["completions", "chat"] as const).map((endpoint) => ({ format, endpoint, name: `${format}-${endpoint}` })),
);
const config = (speedFactor: number) => traceConfig(speedFactor, cells);

/** The trace's planned session starts (ms from the measured phase's start) and its rows' input lengths. */
async function plannedOf(format: TraceFormat) {
  const cell = parseConfigText(traceConfig(1, [{ format, endpoint: "chat" }]), "t.yml", { env: {} }).config
    .cells[0]!;
  const dataset = cell.dataset as FileDatasetConfig & { time_scale: number };
  const file = await readDatasetFile({ dataset, baseDir: dir, field: "f", seed: 0 });
  const sessions = traceCells[format].sessions;
  return {
    starts: traceArrivals(file.sessions!, sessions).map((offset) => offset * dataset.time_scale),
    firstInputs: file.sessions!.map((session) => session.turns[0]!.inputTokens!),
    requests: file.sessions!.reduce((sum, session) => sum + session.turns.length, 0),
  };
}

describe("trace cells against the simulator", () => {
  it("validate reads each trace and describes its load by the trace's timestamps", async () => {
    writeFileSync(join(dir, "base.yml"), config(1));
    const validate = await cli(["validate", "--config", "base.yml"], { cwd: dir });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(
      /azure-completions +completions +Azure trace .*trace timestamps, 20 requests over [\d.]+ s/,
    );
    expect(validate.stdout).toMatch(
      /mapped-chat +chat +trace .*trace timestamps, 8 sessions \(20 requests\) over [\d.]+ s/,
    );
    expect(validate.stdout).toContain(
      "burstgpt-chat: trace: 24 rows read, 6 left out by the filters and window, 1 with 0 input or output tokens skipped; 17 requests to replay",
    );
    expect(validate.stdout).not.toContain("1000 sessions/s");
  });

  it("run replays each format on its timestamps, on both endpoints, and no run is client-bound by the rate", async () => {
    const base = await cli(["run", "--config", "base.yml", "--out", "base", "--side", "baseline"], {
      cwd: dir,
    });
    expect(base.code, base.stderr).toBe(0);
    for (const { format, endpoint, name } of cells) {
      const planned = await plannedOf(format);
      for (const k of [0, 1, 2]) {
        const runDir = join(dir, "base", name, `run-${k}`);
        const file = runFileSchema.parse(JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")));
        expect(file.fingerprint.workload).toMatchObject({ endpoint });
        expect(file.requests.failed, name).toBe(0);
        // The target is the trace's own schedule: its sessions over the span of their arrivals.
        const spanS = planned.starts.at(-1)! / 1000;
        expect(file.load.targetRate!, name).toBeCloseTo(traceCells[format].sessions / spanS, 6);
        expect(file.flags.clientBoundReason ?? "", name).not.toContain("achieved rate");
        expect(file.flags.notes.join("\n")).toMatch(/^trace: \d+ rows read/m);
        const records = readFileSync(join(runDir, "requests.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((line) => requestRecordSchema.parse(JSON.parse(line)))
          .filter((record) => record.phase === "measure");
        expect(records, name).toHaveLength(planned.requests);
        const firsts = records
          .filter((record) => record.session!.turn === 0)
          .sort((a, b) => a.session!.index - b.session!.index);
        // Each session was due at its trace timestamp (from the first one's), and the client kept to the
        // schedule (its median send lag within client.max_schedule_lag_ms).
        const start = firsts[0]!.scheduledMs;
        for (const [index, record] of firsts.entries())
          expect(record.scheduledMs - start, `${name} session ${index}`).toBeCloseTo(
            planned.starts[index]!,
            2,
          );
        expect(file.load.scheduleLagP50Ms!, name).toBeLessThan(200);
        // A prompt as given: on completions exactly its row's input length (one token a word here).
        const prompts = firsts.map((record) => record.promptTokens!);
        if (endpoint === "completions") expect(prompts, name).toEqual(planned.firstInputs);
        else
          for (const [index, tokens] of prompts.entries())
            expect(tokens).toBeGreaterThan(planned.firstInputs[index]!);
      }
    }
  }, 420_000);

  it("compare finds a slower candidate's regression in every trace cell", async () => {
    writeFileSync(join(dir, "cand.yml"), config(2.5));
    const cand = await cli(["run", "--config", "cand.yml", "--out", "cand", "--side", "candidate"], {
      cwd: dir,
    });
    expect(cand.code, cand.stderr).toBe(0);
    const { compare, verdict } = await compareSides(dir);
    const rows = JSON.stringify(
      verdict.comparisons
        .filter((entry) => entry.gated)
        .map((entry) => [entry.cell, entry.metric, entry.verdict, entry.ratio, entry.note]),
    );
    expect(compare.code, `${compare.stdout}${compare.stderr}\n${rows}`).toBe(1);
    expect(verdict.verdict, rows).toBe("regression");
    for (const { name } of cells) {
      const tpot = verdict.comparisons.find((entry) => entry.cell === name && entry.metric === "tpot_p50")!;
      expect(tpot.gated, `${name} ${rows}`).toBe(true);
      expect(tpot.verdict, `${name} ${rows}`).toBe("regression");
      expect(tpot.ratio!, name).toBeGreaterThan(1.8);
    }
    // Every run was usable: none was excluded as client-bound.
    expect(readFileSync(join(dir, "cmp/report.md"), "utf8")).not.toContain("client-bound");
  }, 420_000);
});
