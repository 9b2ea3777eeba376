import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema, datasetSchema, type FileDatasetConfig } from "../../src/config/schema.js";
import { readDatasetFile } from "../../src/workload/dataset-file.js";
import { traceArrivals } from "../../src/workload/sessions.js";
import { describeTraceRead, parseDateTime } from "../../src/workload/trace-file.js";
import { traceReplay } from "../../src/workload/trace-replay.js";
import { traceFixtures as fixtures, mappedColumns } from "./trace-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "vpg-trace-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function read(fields: Record<string, unknown>, options: { baseDir?: string; seed?: number } = {}) {
  return readDatasetFile({
    dataset: datasetSchema.parse(fields) as FileDatasetConfig,
    baseDir: options.baseDir ?? fixtures,
    field: "cells[0].dataset",
    seed: options.seed ?? 1,
  });
}

function written(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

const offsets = (file: Awaited<ReturnType<typeof read>>) =>
  file.sessions!.map((session) => session.turns.map((turn) => turn.timestampMs!));

describe("published trace formats", () => {
  it("reads the Azure LLM inference trace: dates and times to the microsecond, every row a request", async () => {
    const file = await read({ type: "azure_trace", path: "azure-conv.csv" });
    expect(file.trace).toEqual({ rows: 20, empty: 0, filtered: 0, kept: 20, sessions: 20, requests: 20 });
    expect(file.sessions!.every((session) => session.turns.length === 1)).toBe(true);
    // 18:15:46.6805900 then 18:15:47.1455696: 464.9796 ms later.
    expect(offsets(file)[1]![0]).toBeCloseTo(464.9796, 3);
    expect(file.sessions![0]!.turns[0]).toMatchObject({ inputTokens: 235, maxTokens: 31, hashIds: [] });
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads the 2024 Azure form with its zone, and the trace's arrivals keep their gaps", async () => {
    const path = written(
      "azure-2024.csv",
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00.009930+00:00,2162,5\n2024-05-10 00:00:00+00:00,76,15\n2024-05-10 02:00:01.5+02:00,10,1\n",
    );
    const file = await read({ type: "azure_trace", path }, { baseDir: dir });
    // Sessions start in time order, on a clock from the earliest: the second row is 9.93 ms before the
    // first, the third 1.49007 s after it.
    expect(offsets(file).flat()).toEqual([0, expect.closeTo(9.93, 9), expect.closeTo(1500, 9)]);
    expect(traceArrivals(file.sessions!, 3).map((ms) => Number(ms.toFixed(3)))).toEqual([0, 9.93, 1500]);
  });

  it("reads BurstGPT: seconds, the failed requests skipped, filters on Model and Log Type", async () => {
    const all = await read({ type: "burstgpt_trace", path: "burstgpt.csv" });
    expect(all.trace).toMatchObject({ rows: 24, empty: 1, filtered: 0, kept: 23, requests: 23 });
    expect(offsets(all).slice(0, 3).flat()).toEqual([0, 2000, 2000]);
    const chat = await read({
      type: "burstgpt_trace",
      path: "burstgpt.csv",
      models: ["ChatGPT"],
      log_types: ["Conversation log"],
    });
    // The failed row is an API log's: left out by the filter before it is counted as empty.
    expect(chat.trace).toMatchObject({ rows: 24, empty: 0, filtered: 9, kept: 15 });
    expect(describeTraceRead(chat.trace!)).toBe(
      "trace: 24 rows read, 9 left out by the filters and window; 15 requests to replay",
    );
    expect(describeTraceRead(all.trace!)).toBe(
      "trace: 24 rows read, 1 with 0 input or output tokens skipped; 23 requests to replay",
    );
  });

  it("reads a Mooncake trace with its prefix-hash ids, and lines without hash_ids", async () => {
    const file = await read({ type: "mooncake_trace", path: "mooncake.jsonl", block_tokens: 16 });
    expect(file.trace!.requests).toBe(20);
    expect(file.sessions![2]!.turns[0]).toMatchObject({ timestampMs: 350, hashIds: [0, 11, 14] });
    const path = written(
      "converted.jsonl",
      `${JSON.stringify({ timestamp: 0, input_length: 10, output_length: 5 })}\n${JSON.stringify({ timestamp: 40, input_length: 12, output_length: 6, session_id: 7 })}\n`,
    );
    const converted = await read({ type: "mooncake_trace", path }, { baseDir: dir });
    expect(converted.sessions!.map((session) => session.turns[0]!.hashIds)).toEqual([[], []]);
  });
});

describe("a trace through a column mapping", () => {
  it("reads a CSV of its own columns: sessions, prefix blocks and a model filter", async () => {
    const file = await read({
      type: "trace",
      path: "mapped.csv",
      columns: mappedColumns,
      models: ["llama"],
    });
    expect(file.trace).toMatchObject({ rows: 24, filtered: 4, kept: 20, sessions: 8, requests: 20 });
    // c8's three turns, in time order, each its own prefix blocks; c8 started 100 ms after the first row.
    expect(file.sessions![2]!.turns.map((turn) => [turn.timestampMs, turn.hashIds!.length])).toEqual([
      [100, 2],
      [900, 10],
      [1140, 2],
    ]);
    expect(file.sessions![2]!.turns[0]!.hashIds).toEqual([800, 801]);
  });

  it("reads JSON Lines of its own keys, in seconds, with a JSON list of hash ids", async () => {
    const path = written(
      "mine.jsonl",
      [
        { t: 100.25, in: 30, out: 4, conv: 1, blocks: [5, 6] },
        { t: 100.5, in: 20, out: 3 },
        { t: 101, in: 40, out: 2, conv: 1, blocks: "[5, 6, 7]" },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    const file = await read(
      {
        type: "trace",
        path,
        columns: {
          arrival: "t",
          arrival_unit: "s",
          input_tokens: "in",
          output_tokens: "out",
          session: "conv",
          hash_ids: "blocks",
        },
      },
      { baseDir: dir },
    );
    expect(offsets(file)).toEqual([[0, 750], [250]]);
    expect(file.sessions![0]!.turns[1]!.hashIds).toEqual([5, 6, 7]);
  });
});

describe("a trace's selection", () => {
  const mapped = { type: "trace", path: "mapped.csv", columns: mappedColumns };

  it("keeps a time window from the file's first row, then the first N rows", async () => {
    // The rows 1,020 to 1,960 ms after the first row, replayed from the first of them.
    const window = await read({ ...mapped, window: { start_s: 1, end_s: 2 } });
    expect(
      offsets(window)
        .flat()
        .sort((a, b) => a - b),
    ).toEqual([0, 120, 420, 720, 770, 890, 940]);
    const first = await read({ ...mapped, window: { start_s: 1 }, max_rows: 3 });
    expect(first.trace).toMatchObject({ kept: 3, requests: 3 });
    expect(
      offsets(first)
        .flat()
        .sort((a, b) => a - b),
    ).toEqual([0, 120, 420]);
  });

  it("samples sessions with the seed, in time order, the same for the same seed", async () => {
    const a = await read({ ...mapped, sample: 4 }, { seed: 7 });
    const b = await read({ ...mapped, sample: 4 }, { seed: 7 });
    const seeds = await Promise.all(
      [1, 2, 3, 4, 5].map(async (seed) => offsets(await read({ ...mapped, sample: 4 }, { seed }))),
    );
    expect(offsets(a)).toEqual(offsets(b));
    expect(a.sessions).toHaveLength(4);
    expect(a.trace).toMatchObject({ kept: 24, sessions: 4 });
    const starts = offsets(a).map((turns) => turns[0]!);
    expect(starts).toEqual([...starts].sort((x, y) => x - y));
    expect(new Set(seeds.map((sample) => JSON.stringify(sample))).size).toBeGreaterThan(1);
    // A whole session is drawn: every turn of a sampled conversation comes with it.
    const full = await read(mapped);
    const byStart = new Map(full.sessions!.map((session) => [session.turns[0]!.timestampMs, session]));
    for (const session of a.sessions!) expect(byStart.get(session.turns[0]!.timestampMs)).toEqual(session);
  });
});

describe("bad traces", () => {
  const azure = (text: string) =>
    read({ type: "azure_trace", path: written("bad.csv", text) }, { baseDir: dir });

  it("names the file, the line, the column and what was expected", async () => {
    await expect(
      azure("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,x\n"),
    ).rejects.toThrow(
      /bad\.csv:2, column "GeneratedTokens": expected a whole number of tokens from 0 to 1000000 \(the limit on token counts; see docs\/config-reference\.md#limits\), got "x"/,
    );
    await expect(
      azure("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,3\n2023-02-30 01:00:00,1,1\n"),
    ).rejects.toThrow(
      /bad\.csv:3, column "TIMESTAMP": expected a date and time such as "2023-11-16 18:15:46\.6805900".*got "2023-02-30 01:00:00"/,
    );
    await expect(azure("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,,3\n")).rejects.toThrow(
      /bad\.csv:2, column "ContextTokens": .*got an empty cell/,
    );
    await expect(azure("TIMESTAMP,Context,GeneratedTokens\n2023-11-16 18:15:46,1,3\n")).rejects.toThrow(
      /bad\.csv:1: expected a header with the Azure LLM inference trace's column "ContextTokens", got "TIMESTAMP", "Context", "GeneratedTokens"/,
    );
    await expect(
      azure("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,3\n2023-11-16 18:15:47,1,3,9\n"),
    ).rejects.toThrow(/bad\.csv:3: not valid CSV: Invalid Record Length/);
    await expect(azure("TIMESTAMP,ContextTokens,GeneratedTokens\n")).rejects.toThrow(
      /bad\.csv: no requests to replay \(0 rows read/,
    );
  });

  it("names a bad JSON line, a bad hash id list and a session's turns out of order", async () => {
    const mooncake = (text: string) =>
      read({ type: "mooncake_trace", path: written("bad.jsonl", text) }, { baseDir: dir });
    await expect(
      mooncake('{"timestamp": 0, "input_length": 1, "output_length": 1}\n{oops\n'),
    ).rejects.toThrow(/bad\.jsonl:2: not valid JSON/);
    await expect(
      mooncake('{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [1, -2]}\n'),
    ).rejects.toThrow(/bad\.jsonl:1, column "hash_ids": expected a list of whole numbers >= 0/);
    await expect(mooncake('{"timestamp": "soon", "input_length": 1, "output_length": 1}\n')).rejects.toThrow(
      /bad\.jsonl:1, column "timestamp": expected a number of milliseconds, got "soon"/,
    );
    await expect(mooncake("[1, 2]\n")).rejects.toThrow(
      /bad\.jsonl:1: expected a JSON object with "timestamp", "input_length", "output_length"/,
    );
  });

  it("names the limits on a trace line and on a trace's requests", async () => {
    const long = `TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,3\n"${"x".repeat(1_100_000)}",1,1\n`;
    await expect(azure(long)).rejects.toThrow(
      /bad\.csv:\d+: not valid CSV: a record longer than 1048576 bytes \(the limit on a trace line/,
    );
    const rows = Array.from({ length: 1_000_001 }, (_, index) => `${index},1,1`).join("\n");
    const path = written("huge.csv", `t,i,o\n${rows}\n`);
    await expect(
      read(
        {
          type: "trace",
          path,
          columns: { arrival: "t", arrival_unit: "ms", input_tokens: "i", output_tokens: "o" },
        },
        { baseDir: dir },
      ),
    ).rejects.toThrow(
      /huge\.csv: more than 1000000 rows pass the filters \(the limit on a trace's requests; see docs\/config-reference\.md#limits\); keep fewer with window, max_rows or sample/,
    );
  }, 60_000);
});

describe("dates and times", () => {
  it("reads the Azure forms and ISO 8601, and refuses what is no date", () => {
    const base = Date.UTC(2023, 10, 16, 18, 15, 46);
    expect(parseDateTime("2023-11-16 18:15:46.6805900")).toBeCloseTo(base + 680.59, 3);
    expect(parseDateTime("2023-11-16T18:15:46Z")).toBe(base);
    expect(parseDateTime("2023-11-16 20:15:46+02:00")).toBe(base);
    expect(parseDateTime("2023-11-16 13:15:46-0500")).toBe(base);
    for (const text of ["2023-13-01 00:00:00", "2023-11-16", "16/11/2023 18:15:46", "2023-11-16 24:00:00"])
      expect(parseDateTime(text), text).toBeNull();
  });
});

describe("one run's replay of a trace cell", () => {
  const cellOf = (size: Record<string, number>) =>
    configSchema.parse({
      version: 1,
      server: { kind: "sim" },
      model: { name: "m" },
      cells: [
        {
          name: "mapped",
          endpoint: "chat",
          dataset: { type: "trace", path: "mapped.csv", columns: mappedColumns, time_scale: 0.5 },
          load: { type: "rate", rate: 1 },
          size,
        },
      ],
    }).cells[0]!;

  it("counts the sessions its size takes, their requests, and their span on the replay's clock", async () => {
    const file = await read({ type: "trace", path: "mapped.csv", columns: mappedColumns });
    // 8 conversations of 24 rows; the last starts 1,020 ms in, the last row is 3,250 ms in (x0.5).
    expect(traceReplay(cellOf({ requests: 8 }), file)).toEqual({
      sessions: 8,
      requests: 24,
      spanS: 0.51,
      lastRequestS: 1.625,
      outputTokensMean: expect.closeTo(447 / 24, 9),
    });
    // Twice the trace: again one span plus one mean gap later.
    expect(traceReplay(cellOf({ requests: 16 }), file)).toMatchObject({ sessions: 16, requests: 48 });
    // Sized by time: the sessions that start within it.
    expect(traceReplay(cellOf({ duration_s: 0.3 }), file)).toMatchObject({ sessions: 6, spanS: 0.25 });
  });
});
