import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fanOutTimes } from "../../src/metrics/fan-out-metrics.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { type RequestRecord, requestRecordSchema } from "../../src/runner/request-schema.js";
import { cli, compareSides } from "./helpers.js";
import { fanOut, fanOutConfig } from "./session-config.js";

/**
 * A fan-out session cell end to end against the simulator over HTTP: `run` sends sessions whose 2nd and
 * 4th turns fan out to 4 branches at once (each with tools of its own), joined before the next turn;
 * run.json records each run's fan-outs (completion and spread), requests.jsonl each branch, and the
 * simulator serves the branches' shared prefix from its cache. Then a candidate whose simulator runs one
 * sequence at a time (its branches serialize) is a regression on the gated fan-out completion time.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-fan-out-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const gate = `  metrics: [fan_out_completion_p95]
`;

function readRun(side: string, run: number): RunFile {
  return runFileSchema.parse(
    JSON.parse(readFileSync(join(dir, side, "fanout", `run-${run}`, "run.json"), "utf8")),
  );
}

function readRecords(side: string, run: number): RequestRecord[] {
  return readFileSync(join(dir, side, "fanout", `run-${run}`, "requests.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => requestRecordSchema.parse(JSON.parse(line)))
    .filter((record) => record.phase === "measure");
}

const fanOutsPerRun = fanOut.sessions * fanOut.fanOutTurns.length;

describe("a fan-out session cell against the simulator", () => {
  it("run sends each fan-out's branches at once, joins them, and records the fan-outs", async () => {
    writeFileSync(join(dir, "base.yml"), fanOutConfig(16, gate));
    const base = await cli(["run", "--config", "base.yml", "--out", "base", "--side", "baseline"], {
      cwd: dir,
    });
    expect(base.code, base.stderr).toBe(0);

    for (const k of [0, 1, 2]) {
      const summary = readRun("base", k).sessions!;
      expect(summary.completed).toBe(fanOut.sessions);
      expect(summary.fanOut).toMatchObject({
        fanOuts: fanOutsPerRun,
        completed: fanOutsPerRun,
        branches: fanOutsPerRun * fanOut.branches,
      });
      // A branch's answer takes a ~2 ms step per token; branches batched together end close together.
      expect(summary.fanOut!.completion.p50!).toBeGreaterThan(fanOut.branchOutputTokens * 2);
      expect(summary.fanOut!.spread.p50!).toBeLessThan(summary.fanOut!.completion.p50!);
    }

    const records = readRecords("base", 0);
    // Every fan-out turn's branches, and only those, carry a branch of 4.
    const branchRecords = records.filter((record) => record.session!.branch !== undefined);
    expect(new Set(branchRecords.map((record) => record.session!.turn + 1))).toEqual(
      new Set(fanOut.fanOutTurns),
    );
    for (const record of branchRecords) expect(record.session!.branches).toBe(fanOut.branches);
    // Some branches called the tools and got their own tool rounds.
    expect(branchRecords.some((record) => record.session!.toolRound > 0)).toBe(true);
    const bySession = new Map<number, RequestRecord[]>();
    for (const record of records)
      bySession.set(record.session!.index, [...(bySession.get(record.session!.index) ?? []), record]);
    for (const list of bySession.values()) {
      for (const turn of fanOut.fanOutTurns.map((number) => number - 1)) {
        const firsts = list.filter(
          (record) => record.session!.turn === turn && record.session!.toolRound === 0,
        );
        expect(firsts.map((record) => record.session!.branch).sort()).toEqual([0, 1, 2, 3]);
        // Sent at once: within a few ms of each other (one send each, on the client's event loop).
        const sent = firsts.map((record) => record.sentMs);
        expect(Math.max(...sent) - Math.min(...sent)).toBeLessThan(50);
        // The shared prefix (the conversation so far, the turn's message and the role token of the
        // branch's own message) is computed once: every branch but the first admitted finds all its full
        // blocks cached.
        const prefix = firsts[0]!.promptTokens! - fanOut.branchMessageTokens;
        for (const record of firsts) expect(record.promptTokens).toBe(prefix + fanOut.branchMessageTokens);
        const cached = firsts.map((record) => record.cachedTokens!).sort((a, b) => a - b);
        for (const hit of cached.slice(1)) expect(hit).toBe(Math.floor(prefix / 16) * 16);
        // The join: the next turn is sent after the last branch (its tool rounds too) ended.
        const branchEnd = Math.max(
          ...list.filter((record) => record.session!.turn === turn).map((record) => record.endMs),
        );
        const next = list.find(
          (record) => record.session!.turn === turn + 1 && record.session!.toolRound === 0,
        );
        if (next !== undefined) expect(next.sentMs).toBeGreaterThanOrEqual(branchEnd);
      }
    }
    // run.json's fan-out times are those of its records.
    const times = fanOutTimes(records);
    expect(times).toHaveLength(fanOutsPerRun);
    expect(readRun("base", 0).sessions!.fanOut!.completion.count).toBe(fanOutsPerRun);
  }, 180_000);

  it("compare gates the fan-out completion time of a candidate whose branches serialize", async () => {
    // Uses the baseline the previous test measured.
    writeFileSync(join(dir, "cand.yml"), fanOutConfig(1, gate));
    const cand = await cli(["run", "--config", "cand.yml", "--out", "cand", "--side", "candidate"], {
      cwd: dir,
    });
    expect(cand.code, cand.stderr).toBe(0);
    // One sequence at a time: a fan-out's branches end one after the other.
    const serial = readRun("cand", 0).sessions!.fanOut!;
    expect(serial.spread.p50!).toBeGreaterThan(readRun("base", 0).sessions!.fanOut!.completion.p50!);

    const { compare, verdict } = await compareSides(dir);
    const row = (metric: string) =>
      verdict.comparisons.find((entry) => entry.cell === "fanout" && entry.metric === metric)!;
    const rows = JSON.stringify(
      verdict.comparisons
        .filter((entry) => entry.metric.startsWith("fan_out") || entry.metric.startsWith("session_"))
        .map((entry) => [entry.metric, entry.gated, entry.verdict, entry.ratio, entry.note]),
    );
    expect(compare.code, `${compare.stdout}${compare.stderr}\n${rows}`).toBe(1);
    expect(verdict.verdict, rows).toBe("regression");
    expect(row("fan_out_completion_p95")).toMatchObject({ gated: true, verdict: "regression" });
    expect(row("fan_out_completion_p95").ratio!, rows).toBeGreaterThan(1.5);
    expect(row("fan_out_completion_p50")).toMatchObject({ gated: false });
    expect(row("fan_out_completion_p50").candidate!).toBeGreaterThan(row("fan_out_completion_p50").baseline!);

    const markdown = readFileSync(join(dir, "cmp/report.md"), "utf8").replaceAll("\u00a0", " ");
    expect(markdown).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| fanout \| Fan-out completion p95 ↓ \| [\d,]+ → [\d,]+ ms \|/,
    );
    expect(markdown).toContain("for a fan-out's slowest branch");
  }, 240_000);
});
