import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  compactHistory,
  conditionsHash,
  defaultHistoryLimits,
  historyRecordsFromRuns,
  parseHistory,
  pooledRunVariances,
  runsFromHistory,
  serializeHistory,
  seriesOf,
  UntrustedHistoryError,
} from "../../../src/compare/history/history.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { ExitCode } from "../../../src/util/errors.js";
import { makeRunFile } from "../fixtures.js";
import { fingerprintA, fingerprintB, record, session } from "./history-fixtures.js";

describe("history records", () => {
  it("makes one record per cell and per-run metric from a session's runs, with health and fingerprint", () => {
    const runs = [0, 1, 2].map((run) =>
      runRecordFromRunFile(
        makeRunFile({ run, slowdown: 1 + run / 100, flags: run === 1 ? { serverCrashed: true } : {} }),
        `chat/run-${run}/run.json`,
      ),
    );
    const records = historyRecordsFromRuns(runs, session(7));
    const ttft = records.find((r) => r.metric === "ttft_p95");
    // Six significant digits are kept.
    expect(ttft?.values).toEqual(runs.map((r) => Number(r.metrics.ttft_p95!.toPrecision(6))));
    expect(ttft?.health).toEqual({ excluded: [1], reasons: ["server crashed during the run"] });
    expect(ttft?.fingerprint).toBe(conditionsHash(runs[0]!.fingerprint));
    expect(records.some((r) => r.metric === "error_rate")).toBe(false);
    expect(new Set(records.map((r) => r.metric)).size).toBe(records.length);
    // Round trip through the JSON Lines text.
    expect(parseHistory(serializeHistory(records), "test")).toEqual(records);
  });

  it("ignores informational fingerprint fields in the conditions hash", () => {
    const a = conditionsHash({ tool: { version: "1" }, runner: { name: "r1" }, gpu: { names: ["H100"] } });
    const b = conditionsHash({ tool: { version: "2" }, runner: { name: "r2" }, gpu: { names: ["H100"] } });
    const c = conditionsHash({ tool: { version: "1" }, runner: { name: "r1" }, gpu: { names: ["A100"] } });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it("hashes a session recorded with the retired, always empty `datasets` field like one recorded without", () => {
    const conditions = { gpu: { names: ["H100"] }, workload: { datasetSha256: "a".repeat(64), seed: 0 } };
    expect(conditionsHash({ ...conditions, datasets: {} })).toBe(conditionsHash(conditions));
    // The hash a history line written before holds: the retired field counted as recorded, `{}`.
    expect(conditionsHash(conditions)).toBe(
      createHash("sha256")
        .update(
          JSON.stringify([
            ["datasets", {}],
            ["gpu.names", ["H100"]],
            ["workload.datasetSha256", "a".repeat(64)],
            ["workload.seed", 0],
          ]),
        )
        .digest("hex")
        .slice(0, 16),
    );
    expect(conditionsHash({ ...conditions, workload: { datasetSha256: "b".repeat(64), seed: 0 } })).not.toBe(
      conditionsHash(conditions),
    );
  });
});

describe("reading a history (untrusted)", () => {
  const good = serializeHistory([record(session(1), [100, 101]), record(session(2), [102, 99])]);

  it("refuses an oversized file naming the limit, as an input error", () => {
    const error = (() => {
      try {
        parseHistory(good, "acme/serving@perf-history:h.jsonl", { ...defaultHistoryLimits, maxBytes: 100 });
      } catch (caught) {
        return caught as Error;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(UntrustedHistoryError);
    expect(error?.message).toMatch(
      /acme\/serving@perf-history:h\.jsonl: \d+ bytes, more than the 100 allowed \(limit maxHistoryBytes\)/,
    );
    expect(ExitCode.invalidInput).toBe(2);
  });

  it("refuses a corrupted line, naming the line and the field", () => {
    const lines = good.split("\n");
    lines[1] = lines[1]!.replace('"schemaVersion":1', '"schemaVersion":9');
    expect(() => parseHistory(lines.join("\n"), "h")).toThrow(/history h line 2: field schemaVersion/);
    expect(() => parseHistory(`${good}{not json\n`, "h")).toThrow(/history h line 3: not JSON/);
    const negative = good.replace("[100,101]", "[-5,101]");
    expect(() => parseHistory(negative, "h")).toThrow(/line 1: field values\.0/);
  });

  it("refuses a duplicated record and an excluded index outside the values", () => {
    expect(() => parseHistory(good + good, "h")).toThrow(/line 3: a second record for session 1-1/);
    const bad = serializeHistory([record(session(1), [100], { excluded: [3] })]);
    expect(() => parseHistory(bad, "h")).toThrow(/field health\.excluded: run 3 is not among the 1 values/);
  });

  it("refuses a line over the line limit", () => {
    expect(() => parseHistory(good, "h", { ...defaultHistoryLimits, maxLineBytes: 50 })).toThrow(
      /line 1: longer than 50 bytes \(limit maxHistoryLineBytes\)/,
    );
  });
});

describe("compaction", () => {
  it("drops the oldest whole sessions beyond maxSessions", () => {
    const records = [1, 2, 3, 4, 5].flatMap((id) => [
      record(session(id), [100]),
      record(session(id), [50], { metric: "ttft_p50" }),
    ]);
    const { records: kept, droppedSessions } = compactHistory(records, {
      ...defaultHistoryLimits,
      maxSessions: 3,
    });
    expect(droppedSessions).toEqual(["1-1", "2-1"]);
    expect(kept).toHaveLength(6);
  });

  it("over the byte bound, compacts down to three quarters of it", () => {
    const records = Array.from({ length: 20 }, (_, i) => record(session(i + 1), [100, 101, 102]));
    const size = serializeHistory(records).length;
    const maxBytes = Math.floor(size * 0.9);
    const { records: kept } = compactHistory(records, { ...defaultHistoryLimits, maxBytes });
    expect(serializeHistory(kept).length).toBeLessThanOrEqual(maxBytes * 0.75);
    expect(kept.at(-1)?.session.id).toBe("20-1");
  });
});

describe("runs read back for the gate", () => {
  it("leaves out sessions recorded under another fingerprint and keeps the last N", () => {
    const records = [
      record(session(1), [100, 101]),
      record(session(2), [130, 131], { fingerprint: fingerprintB }),
      record(session(3), [102, 100], { excluded: [1] }),
      record(session(4), [99, 98]),
    ];
    const read = runsFromHistory(records, { fingerprint: fingerprintA, lastSessions: 2 });
    expect(read.sessions.map((s) => s.id)).toEqual(["3-1", "4-1"]);
    expect(read.leftOut.map((l) => l.session.id)).toEqual(["2-1"]);
    expect(read.leftOut[0]?.reason).toMatch(/other conditions/);
    expect(read.runs).toHaveLength(4);
    const excluded = read.runs.find((r) => r.session === "3-1" && r.run === 1);
    expect(excluded?.exclusionReasons).toEqual(["server crashed during the run"]);
    expect(read.runs.find((r) => r.session === "4-1" && r.run === 0)?.metrics.ttft_p95).toBe(99);
  });

  it("gives a series of healthy ln values per session, oldest first", () => {
    const records = [record(session(2), [110, 0]), record(session(1), [100, 200], { excluded: [1] })];
    const series = seriesOf(records, "chat", "ttft_p95");
    expect(series.map((p) => p.session.id)).toEqual(["1-1", "2-1"]);
    expect(series[0]?.logs).toEqual([Math.log(100)]);
    expect(series[1]?.logs).toEqual([Math.log(110)]);
  });
});

describe("server starts in the history", () => {
  const withStart = (run: number, id: string, basis: "recorded" | "assumed-shared" = "recorded") => ({
    ...runRecordFromRunFile(makeRunFile({ run, slowdown: 1 + run / 100 }), `chat/run-${run}/run.json`),
    serverStart: { id, basis },
  });

  it("keeps each run's start (distinct ids once, an index per run) and reads it back", () => {
    const runs = [withStart(0, "s-a"), withStart(1, "s-a"), withStart(2, "s-b")];
    const records = historyRecordsFromRuns(runs, session(7));
    expect(records[0]?.serverStarts).toEqual({
      ids: ["s-a", "s-b"],
      basis: ["recorded", "recorded"],
      runs: [0, 0, 1],
    });
    const parsed = parseHistory(serializeHistory(records), "test");
    expect(parsed).toEqual(records);
    const read = runsFromHistory(parsed, { fingerprint: null, lastSessions: 10 });
    expect(read.runs.map((run) => run.serverStart)).toEqual([
      { id: "s-a", basis: "recorded" },
      { id: "s-a", basis: "recorded" },
      { id: "s-b", basis: "recorded" },
    ]);
  });

  it("keeps no machine path of an assumed start, and never merges two sessions' assumed starts", () => {
    const assumed = "unrecorded:baseline:/home/runner/work/_temp/perf/candidate";
    const records = [7, 8].flatMap((id) =>
      historyRecordsFromRuns(
        [withStart(0, assumed, "assumed-shared"), withStart(1, assumed, "assumed-shared")],
        session(id),
      ),
    );
    expect(serializeHistory(records)).not.toContain("/home/runner");
    const read = runsFromHistory(records, { fingerprint: null, lastSessions: 10 });
    const ids = read.runs.map((run) => run.serverStart?.id);
    expect(new Set(ids).size).toBe(2);
    expect(read.runs.every((run) => run.serverStart?.basis === "assumed-shared")).toBe(true);
    expect(ids[0]).toMatch(/^history:7-1:assumed-shared:[0-9a-f]{16}$/);
  });

  it("reads records of earlier versions (no serverStarts) as one shared start per session", () => {
    const read = runsFromHistory([record(session(1), [100, 101]), record(session(2), [99, 98])], {
      fingerprint: null,
      lastSessions: 10,
    });
    expect(read.runs.map((run) => run.serverStart)).toEqual([
      { id: "unrecorded:history:1-1", basis: "assumed-shared" },
      { id: "unrecorded:history:1-1", basis: "assumed-shared" },
      { id: "unrecorded:history:2-1", basis: "assumed-shared" },
      { id: "unrecorded:history:2-1", basis: "assumed-shared" },
    ]);
  });

  it("refuses server starts that do not fit the values", () => {
    const line = (serverStarts: unknown) =>
      serializeHistory([{ ...record(session(1), [100, 101]), serverStarts } as never]);
    expect(() => parseHistory(line({ ids: ["a"], basis: ["recorded"], runs: [0] }), "h")).toThrow(
      /line 1: field serverStarts\.runs: 1 entries, but 2 values \(one start per run\)/,
    );
    expect(() => parseHistory(line({ ids: ["a"], basis: ["recorded"], runs: [0, 1] }), "h")).toThrow(
      /field serverStarts\.runs: start 1 is not among the 1 ids/,
    );
    expect(() => parseHistory(line({ ids: ["a", "b"], basis: ["recorded"], runs: [0, 1] }), "h")).toThrow(
      /field serverStarts\.basis: 1 entries, but 2 ids/,
    );
    expect(() => parseHistory(line({ ids: ["a"], basis: ["guessed"], runs: [0, 0] }), "h")).toThrow(
      /field serverStarts\.basis\.0/,
    );
  });
});

describe("pooledRunVariances", () => {
  it("pools the within-session variance of ln values, leaving out a broken session", () => {
    const records = [
      record(session(1), [100, 110]),
      record(session(2), [100, 90, 95]),
      record(session(3), [100, 300]),
      record(session(4), [100, 105]),
      record(session(5), [100], {}),
    ];
    const { runs } = runsFromHistory(records, { fingerprint: fingerprintA, lastSessions: 10 });
    const pooled = pooledRunVariances(runs).get("chat\u0000ttft_p95");
    const v = (xs: number[]) => {
      const logs = xs.map(Math.log);
      const m = logs.reduce((s, x) => s + x, 0) / logs.length;
      return logs.reduce((s, x) => s + (x - m) ** 2, 0);
    };
    // Session 3 (sd of ln ~0.78) is more than 9 times the median session's variance: left out.
    expect(pooled?.df).toBe(4);
    expect(pooled?.variance).toBeCloseTo((v([100, 110]) + v([100, 90, 95]) + v([100, 105])) / 4, 12);
  });
});

describe("runs read back across a step of main", () => {
  it("aligns each stretch between change points to the stretch holding the stored baseline", () => {
    const records = Array.from({ length: 16 }, (_, i) =>
      record(session(i + 1), [100 * (i >= 8 ? 1.2 : 1) * (1 + (i % 3) / 1000), 101 * (i >= 8 ? 1.2 : 1)]),
    );
    const plain = runsFromHistory(records, { fingerprint: fingerprintA, lastSessions: 20 });
    const aligned = runsFromHistory(records, { fingerprint: fingerprintA, lastSessions: 20, alignTo: "3-1" });
    const value = (runs: typeof plain.runs, id: string) =>
      runs.find((r) => r.session === id && r.run === 1)?.metrics.ttft_p95;
    expect(value(plain.runs, "12-1")).toBeCloseTo(121.2, 9);
    // Stretch 9..16 scaled back to the level of stretch 1..8, which holds session 3.
    expect(value(aligned.runs, "12-1")!).toBeCloseTo(101, 0);
    expect(value(aligned.runs, "2-1")).toBe(101);
    const toLatest = runsFromHistory(records, { fingerprint: fingerprintA, lastSessions: 20, alignTo: null });
    expect(value(toLatest.runs, "2-1")!).toBeCloseTo(121.2, 0);
  });
});
