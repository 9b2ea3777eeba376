import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historySeries, readHistoryFile } from "../../src/app/history-series.js";
import { defaultHistoryLimits, serializeHistory } from "../../src/compare/history/history.js";
import { renderHistorySeries } from "../../src/report/history.js";
import { InputError, UsageError } from "../../src/util/errors.js";
import { record, session } from "../compare/history/history-fixtures.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "history-series-"));
  // Two cells over 24 sessions: chat's TTFT p95 steps +25% at session 13, rag's stays flat.
  const records = Array.from({ length: 24 }, (_, i) =>
    ["chat", "rag"].map((cell) =>
      record(
        session(i + 1),
        [0, 1, 2].map((r) => 100 * (cell === "chat" && i >= 12 ? 1.25 : 1) * (1 + ((i + r) % 3) / 200)),
        { cell },
      ),
    ),
  ).flat();
  await writeFile(join(dir, "two-cells.jsonl"), serializeHistory(records));
  await writeFile(join(dir, "huge.jsonl"), "");
  await truncate(join(dir, "huge.jsonl"), defaultHistoryLimits.maxBytes + 1);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const request = (cell: string | undefined, window = 60) => ({
  path: join(dir, "two-cells.jsonl"),
  file: "two-cells.jsonl",
  cell,
  metric: "ttft_p95" as const,
  window,
});

describe("historySeries", () => {
  it("returns one cell's sessions oldest first with the step found by the action's scan", async () => {
    const series = await historySeries(request("chat"));
    expect(series.sessions.map((s) => s.session)).toEqual(Array.from({ length: 24 }, (_, i) => `${i + 1}-1`));
    expect(series.scanned).toBe(24);
    expect(series.changePoints).toEqual([
      expect.objectContaining({ lastBefore: "12-1", firstAfter: "13-1", worse: true }),
    ]);
    expect(series.changePoints[0]!.ratio).toBeCloseTo(1.25, 2);
    expect((await historySeries(request("rag"))).changePoints).toEqual([]);
  });

  it("looks at the last `window` sessions only", async () => {
    const series = await historySeries(request("chat", 8));
    expect(series.scanned).toBe(8);
    expect(series.sessions).toHaveLength(24);
    expect(series.changePoints).toEqual([]);
  });

  it("names the series' start and run levels where its sessions recorded two starts or more", async () => {
    expect((await historySeries(request("chat"))).levels).toBeNull();
    // 8 sessions of 6 runs on 2 starts: the second start 2% slow, runs within a start ±0.5%.
    const records = Array.from({ length: 8 }, (_, i) => ({
      ...record(
        session(i + 1),
        [0, 1, 2, 3, 4, 5].map((r) => 100 * (r >= 3 ? 1.02 : 1) * (1 + ((i + r) % 3) / 200 - 0.005)),
      ),
      serverStarts: {
        ids: [`s${i}-a`, `s${i}-b`],
        basis: ["recorded", "recorded"] as ["recorded", "recorded"],
        runs: [0, 0, 0, 1, 1, 1],
      },
    }));
    await writeFile(join(dir, "starts.jsonl"), serializeHistory(records));
    const series = await historySeries({
      ...request("chat"),
      path: join(dir, "starts.jsonl"),
      file: "starts.jsonl",
    });
    expect(series.levels).toMatchObject({
      sessions: 8,
      starts: 16,
      startDf: 8,
      runDf: 32,
      screenedSessions: [],
    });
    expect(series.levels!.startSd).toBeGreaterThan(0.012);
    expect(series.levels!.runSd).toBeLessThan(0.01);
    expect(renderHistorySeries(series, "table")).toMatch(
      /Start and run levels: between starts 1\.\d+% \(8 df\), between runs of a start 0\.\d+% \(32 df\), from 8 session\(s\) and 16 starts\./,
    );
  });

  it("needs the cell when the history has several, and names the ones it has", async () => {
    await expect(historySeries(request(undefined))).rejects.toThrow(
      new UsageError("--cell: the history has 2 cells (chat, rag)"),
    );
    await expect(historySeries(request("code"))).rejects.toThrow(
      new InputError('history two-cells.jsonl: no cell "code" (it has chat, rag)'),
    );
  });

  it("refuses a file over the size limit before reading it, and a path that is not a file", async () => {
    await expect(readHistoryFile(join(dir, "huge.jsonl"), "huge.jsonl")).rejects.toThrow(
      `history huge.jsonl: ${defaultHistoryLimits.maxBytes + 1} bytes, more than the ${defaultHistoryLimits.maxBytes} allowed (limit maxHistoryBytes)`,
    );
    await expect(readHistoryFile(dir, "results")).rejects.toThrow("history results: not a file");
  });
});
