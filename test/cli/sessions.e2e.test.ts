import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { requestRecordSchema } from "../../src/runner/request-schema.js";
import { cli, compareInterleaved } from "./helpers.js";
import {
  messageTokens,
  outputTokens,
  sessionConfig,
  sessions,
  systemTokens,
  turns,
} from "./session-config.js";

/**
 * A session cell end to end against the simulator over HTTP: `run` sends generated agent sessions (5
 * turns over a shared system prompt, think time, two declared tools) to a simulator that reasons before
 * each answer, answers half of the tool-declaring requests with a tool call and reports cached_tokens;
 * run.json carries the session metrics (duration, goodput, hit rate, TTFT by depth) and the reasoning
 * counts, requests.jsonl each turn with the conversation so far. Then `compare` of that run against a
 * candidate whose engine steps 60% slower gates the configured session metrics, reports the others as
 * advisory, and report.md names them.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-sessions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cliGate = `  metrics: [session_duration_p95, session_goodput, ttft_p95_depth_2_3]
  # A depth bucket of these small runs holds about 45 requests: let its p95 be gated.
  min_requests: { p95: 20 }
`;
const config = (speedFactor: number) => sessionConfig(speedFactor, cliGate);

function readRun(side: string, run: number): RunFile {
  return runFileSchema.parse(
    JSON.parse(readFileSync(join(dir, side, "agent", `run-${run}`, "run.json"), "utf8")),
  );
}

function readRecords(side: string, run: number) {
  return readFileSync(join(dir, side, "agent", `run-${run}`, "requests.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => requestRecordSchema.parse(JSON.parse(line)));
}

describe("session cells against the simulator", () => {
  it("run writes the session and reasoning metrics of agent sessions with tool calls", async () => {
    writeFileSync(join(dir, "base.yml"), config(1));
    const base = await cli(["run", "--config", "base.yml", "--out", "base", "--side", "baseline"], {
      cwd: dir,
    });
    expect(base.code, base.stderr).toBe(0);
    // Progress counts sessions against the planned sessions, never requests against them.
    expect(base.stderr).toMatch(new RegExp(`\\] ${sessions}/${sessions} sessions \\(\\d+ requests\\)`));
    expect(base.stderr).not.toMatch(/\] \d+\/12 requests/);

    for (const k of [0, 1, 2]) {
      const file = readRun("base", k);
      const summary = file.sessions!;
      expect(summary.started).toBe(sessions);
      expect(summary.completed).toBe(sessions);
      // Every user turn, plus the tool-result rounds.
      expect(summary.requests).toBeGreaterThan(sessions * turns);
      expect(file.requests.completed).toBe(summary.requests);
      // A session is 5 answers of 48 tokens and 4 think times of 50 ms at least.
      expect(summary.duration.p50!).toBeGreaterThan(4 * 50);
      expect(summary.duration.p95!).toBeGreaterThanOrEqual(summary.duration.p50!);
      expect(summary.goodput).not.toBeNull();
      expect(summary.goodput!).toBeGreaterThan(0);
      expect(summary.goodput!).toBeLessThanOrEqual(summary.throughput);
      expect(summary.throughput).toBeCloseTo(sessions / file.durationS, 6);
      // The later turns reuse the conversation so far: most prompt tokens come from the cache.
      expect(summary.cacheHitRate!).toBeGreaterThan(0.5);
      expect(summary.cacheHitRate!).toBeLessThan(1);
      expect(summary.serverCacheHitRate!).toBeGreaterThan(0.5);
      expect(summary.contamination.flagged).toBe(false);
      const depth = Object.fromEntries(summary.ttftByDepth.map((entry) => [entry.bucket, entry]));
      // Depth 1 is the first turn (and its tool rounds), 2-3 and 4-7 the later turns; 5 turns never reach 8.
      expect(depth["1"]!.requests).toBeGreaterThanOrEqual(sessions);
      expect(depth["2_3"]!.requests).toBeGreaterThanOrEqual(2 * sessions);
      expect(depth["4_7"]!.requests).toBeGreaterThanOrEqual(2 * sessions);
      expect(depth["8_up"]).toMatchObject({ requests: 0, p95: null });
      for (const bucket of ["1", "2_3", "4_7"]) expect(depth[bucket]!.p95!).toBeGreaterThan(0);
      expect(
        summary.ttftByDepth.reduce((sum, entry) => sum + entry.requests, 0),
        "every completed request in one bucket",
      ).toBe(file.requests.completed);

      // The reasoning model: every answer reasoned first (about 12 tokens), some answers were tool calls.
      const answer = file.answer!;
      expect(answer.reasoningRequests).toBe(file.requests.completed);
      expect(answer.reasoningTokens.mean!).toBeGreaterThan(6);
      expect(answer.reasoningTokens.mean!).toBeLessThan(18);
      expect(Object.keys(answer.reasoningFields)).toEqual(["reasoning_content"]);
      expect(answer.toolCalls).toBeGreaterThan(0);
      expect(file.latency.answer_ttft.p50!).toBeGreaterThan(file.latency.ttft.p50!);
      // The cache protocol of a warm-cache workload: reset, salted, one warm-up session of its own.
      expect(file.cacheProtocol).toMatchObject({ reset: true, salted: true, warmup: { sessions: 1 } });
      // The length check tokenizes each turn's messages as sent, the system prompt with the message.
      const check = file.flags.notes.find((note) => note.startsWith("prompt lengths checked"));
      expect(check).toMatch(/max error [0-2] tokens/);
    }

    // Each session's requests carry the conversation so far: the prompt grows turn by turn (and round by
    // round), and from the second request on the earlier turns' prefix is served from the cache.
    const records = readRecords("base", 0).filter((record) => record.phase === "measure");
    const bySession = new Map<number, typeof records>();
    for (const record of records) {
      const index = record.session!.index;
      bySession.set(index, [...(bySession.get(index) ?? []), record]);
    }
    expect(bySession.size).toBe(sessions);
    let toolRounds = 0;
    for (const list of bySession.values()) {
      list.sort((a, b) => a.session!.turn - b.session!.turn || a.session!.toolRound - b.session!.toolRound);
      expect(new Set(list.map((record) => record.session!.turn))).toEqual(new Set([0, 1, 2, 3, 4]));
      expect(list[0]!.promptTokens!).toBeGreaterThanOrEqual(systemTokens + messageTokens);
      for (let i = 1; i < list.length; i++) {
        expect(list[i]!.promptTokens!).toBeGreaterThan(list[i - 1]!.promptTokens!);
        expect(list[i]!.cachedTokens!).toBeGreaterThan(0);
        // The prefix cached is at most what the previous request sent (the server's blocks round down).
        expect(list[i]!.cachedTokens!).toBeLessThanOrEqual(list[i - 1]!.promptTokens! + outputTokens);
      }
      toolRounds += list.filter((record) => record.session!.toolRound > 0).length;
    }
    expect(toolRounds).toBeGreaterThan(0);
  }, 180_000);

  it("does not call a run client-bound for holding fewer sessions than its concurrency", async () => {
    // 4 sessions at a concurrency of 8 sessions: 4 in flight is all the run can hold, and a session in its
    // think time holds no connection; neither is a connection cap in the client.
    const few = config(1)
      .replace("concurrency: 4 }", "concurrency: 8 }")
      .replace(`size: { requests: ${sessions} }`, "size: { requests: 4 }")
      .replace("repeats: { min: 3, max: 3 }", "repeats: { min: 1, max: 1 }");
    writeFileSync(join(dir, "few.yml"), few);
    const run = await cli(["run", "--config", "few.yml", "--out", "few"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const file = readRun("few", 0);
    expect(file.sessions!.completed).toBe(4);
    expect(file.load.targetConcurrency).toBe(8);
    // The machine is shared, so an event-loop delay may still flag it; the concurrency check must not.
    expect(file.flags.clientBoundReason ?? "").not.toContain("achieved concurrency");
  }, 120_000);

  it("compare gates the configured session metrics of a slower candidate and reports the others", async () => {
    // Uses the baseline the previous test measured.
    writeFileSync(join(dir, "cand.yml"), config(1.6));
    const cand = await cli(["run", "--config", "cand.yml", "--out", "cand", "--side", "candidate"], {
      cwd: dir,
    });
    expect(cand.code, cand.stderr).toBe(0);
    const compare = await compareInterleaved(dir);
    const verdict = compare.verdict;
    const row = (metric: string) =>
      verdict.comparisons.find((entry) => entry.cell === "agent" && entry.metric === metric)!;
    const rows = JSON.stringify(
      verdict.comparisons
        .filter((entry) => entry.metric.startsWith("session_") || entry.metric.startsWith("ttft_p95_depth"))
        .map((entry) => [entry.metric, entry.gated, entry.verdict, entry.ratio, entry.note]),
    );
    expect(compare.code, `${compare.stdout}${compare.stderr}\n${rows}`).toBe(1);
    expect(verdict.verdict, rows).toBe("regression");
    // Gated as configured: a 60% slower engine lengthens every session and completes fewer per second.
    for (const metric of ["session_duration_p95", "session_goodput"]) {
      expect(row(metric).gated, `${metric} ${rows}`).toBe(true);
      expect(row(metric).verdict, `${metric} ${rows}`).toBe("regression");
    }
    expect(row("session_duration_p95").ratio!).toBeGreaterThan(1.1);
    expect(row("session_goodput").ratio!).toBeLessThan(0.9);
    // The depth bucket is gated (min_requests p95: 20 against its ~45 requests); its verdict on TTFTs of a
    // few ms is not this test's point.
    expect(row("ttft_p95_depth_2_3").gated, rows).toBe(true);
    // The others advisory, with values on both sides; the empty depth bucket has none.
    for (const metric of [
      "session_duration_p50",
      "session_throughput",
      "session_cache_hit_rate",
      "ttft_p95_depth_1",
      "ttft_p95_depth_4_7",
    ]) {
      expect(row(metric).gated, `${metric} ${rows}`).toBe(false);
      expect(row(metric).baseline, `${metric} ${rows}`).not.toBeNull();
      expect(row(metric).candidate, `${metric} ${rows}`).not.toBeNull();
    }
    expect(row("session_cache_hit_rate").verdict, rows).toBe("within-tolerance");
    expect(verdict.comparisons.some((entry) => entry.metric === "ttft_p95_depth_8_up" && entry.gated)).toBe(
      false,
    );

    // The headline table keeps a value and its unit together with no-break spaces.
    const markdown = readFileSync(join(dir, "cmp/report.md"), "utf8").replaceAll("\u00a0", " ");
    expect(markdown).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| agent \| Session duration p95 ↓ \| [\d,]+ → [\d,]+ ms \|/,
    );
    expect(markdown).toMatch(
      /\| 🔴 regression[¹²³⁴⁵⁶⁷⁸⁹⁰]* \| agent \| Session goodput ↑ \| [\d.]+ → [\d.]+ sessions\/s \|/,
    );
    expect(markdown).toContain("users wait");
    expect(markdown).toContain("for a whole session");
    // The advisory session metrics in the cell's table of all metrics.
    expect(markdown).toMatch(
      /\| Session throughput ↑ \| ±5% \| [\d.]+ sessions\/s \| [\d.]+ sessions\/s \|.*\| advisory \|/,
    );
    expect(markdown).toMatch(/\| Prefix-cache hit rate per session ↑ \|.*\| advisory \|/);
    expect(markdown).toMatch(/\| TTFT p95 at turns 4-7 ↓ \|.*\| advisory \|/);
    expect(markdown).toMatch(/\| TTFT p95 at turns 2-3 ↓ \|.*\| gated \|/);
  }, 240_000);
});
