import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historySeries, readHistoryFile } from "../../src/app/history-series.js";
import { defaultHistoryLimits, serializeHistory } from "../../src/compare/history.js";
import { InputError, UsageError } from "../../src/util/errors.js";
import { record, session } from "../compare/history-fixtures.js";

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
