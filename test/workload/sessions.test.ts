import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { datasetSchema, type FileDatasetConfig } from "../../src/config/schema.js";
import { readDatasetFile } from "../../src/workload/dataset-file.js";
import { traceArrivals } from "../../src/workload/sessions.js";

const dir = mkdtempSync(join(tmpdir(), "vpg-sessions-"));
const dataset = (fields: Record<string, unknown>) => datasetSchema.parse(fields) as FileDatasetConfig;

describe("session files", () => {
  it("reads every human turn of a ShareGPT conversation as a turn, its system turn as the system prompt", async () => {
    const path = join(dir, "chats.json");
    writeFileSync(
      path,
      JSON.stringify([
        {
          conversations: [
            { from: "system", value: "be brief" },
            { from: "human", value: "hello there" },
            { from: "gpt", value: "hi" },
            { from: "human", value: "and again" },
            { from: "gpt", value: "yes" },
          ],
        },
        { conversations: [{ from: "gpt", value: "no question" }] },
      ]),
    );
    const file = await readDatasetFile({
      dataset: dataset({ type: "sharegpt_sessions", path }),
      baseDir: dir,
      field: "cells[0].dataset",
      seed: 1,
    });
    expect(file.skipped).toBe(1);
    expect(file.sessions).toEqual([
      {
        system: "be brief",
        turns: [
          { content: "hello there", answer: "hi", maxTokens: null },
          { content: "and again", answer: "yes", maxTokens: null },
        ],
      },
    ]);
    await expect(
      readDatasetFile({
        dataset: dataset({ type: "sharegpt_sessions", path, sha256: "0".repeat(64) }),
        baseDir: dir,
        field: "cells[0].dataset",
        seed: 1,
      }),
    ).rejects.toThrow(/cells\[0\]\.dataset\.sha256: .* expected 0{64} \(the file changed\)/);
  });

  it("groups a Mooncake-style trace's lines by session_id, sessions in the order of their first timestamp", async () => {
    const path = join(dir, "trace.jsonl");
    writeFileSync(
      path,
      [
        { timestamp: 500, input_length: 700, output_length: 20, hash_ids: [1, 2], session_id: "b" },
        { timestamp: 0, input_length: 600, output_length: 10, hash_ids: [1, 3] },
        { timestamp: 900, input_length: 1400, output_length: 30, hash_ids: [1, 2, 4], session_id: "b" },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    const file = await readDatasetFile({
      dataset: dataset({ type: "mooncake_trace", path }),
      baseDir: dir,
      field: "cells[0].dataset",
      seed: 1,
    });
    expect(file.sessions!.map((session) => session.turns.map((turn) => turn.timestampMs))).toEqual([
      [0],
      [500, 900],
    ]);
    expect(file.sessions![1]!.turns[1]).toMatchObject({
      inputTokens: 1400,
      maxTokens: 30,
      hashIds: [1, 2, 4],
    });
    expect(traceArrivals(file.sessions!, 5)).toEqual([0, 500, 1000, 1500, 2000]);
  });

  it("names the line and the field of a bad trace line", async () => {
    const path = join(dir, "bad.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify({ timestamp: 0, input_length: 10, output_length: 5 })}\n{"timestamp": 3, "input_length": -1, "output_length": 5}\n`,
    );
    const read = () =>
      readDatasetFile({
        dataset: dataset({ type: "mooncake_trace", path }),
        baseDir: dir,
        field: "cells[0].dataset",
        seed: 1,
      });
    await expect(read()).rejects.toThrow(
      /bad\.jsonl:2, column "input_length": expected a whole number of tokens from 0 to 1000000/,
    );
    writeFileSync(
      path,
      `${JSON.stringify({ timestamp: 9, input_length: 10, output_length: 5, session_id: 1 })}\n${JSON.stringify({ timestamp: 3, input_length: 10, output_length: 5, session_id: 1 })}\n`,
    );
    await expect(read()).rejects.toThrow(
      /bad\.jsonl:2, column "timestamp": expected the turns of session 1 in time order, got 3, 6 ms before the session's previous turn/,
    );
  });
});
