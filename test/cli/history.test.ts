import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeHistory } from "../../src/compare/history/history.js";
import { commitOf, record, session } from "../compare/history/history-fixtures.js";
import { cli } from "./helpers.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "history-cli-"));
  // 20 sessions, TTFT p95 steps +20% at session 13; one crashed run in session 2.
  const records = Array.from({ length: 20 }, (_, i) =>
    record(
      session(i + 1),
      [0, 1, 2].map((r) => 100 * (i >= 12 ? 1.2 : 1) * (1 + ((i + r) % 3) / 200)),
      {
        excluded: i === 1 ? [2] : [],
      },
    ),
  );
  await writeFile(join(dir, "history.jsonl"), serializeHistory(records));
  await writeFile(join(dir, "bad.jsonl"), `${serializeHistory(records.slice(0, 2))}{"schemaVersion":1}\n`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("vllm-perf-gate history", () => {
  it("prints the series oldest first with the change point marked", async () => {
    const result = await cli(["history", "history.jsonl"], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("TTFT p95 of cell chat: 20 session(s), 1 change point(s) in the last 20");
    expect(lines[2]).toMatch(/^session\s+commit\s+recorded\s+runs\s+mean$/);
    expect(lines[3]).toMatch(/^1-1\s+000000000000\s+2026-11-01 01:00\s+3\/3\s+/);
    expect(lines[4]).toMatch(/^2-1 .* 2\/3 /);
    const marked = lines.filter((line) => line.includes("<- step"));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toMatch(/^13-1 .*<- step \+20\.0% \(.*\) worse$/);
  });

  it("exports the series as JSON and CSV", async () => {
    const json = JSON.parse(
      (await cli(["history", "history.jsonl", "--format", "json"], { cwd: dir })).stdout,
    );
    expect(json.sessions).toHaveLength(20);
    expect(json.changePoints).toEqual([
      expect.objectContaining({ firstAfter: "13-1", lastBefore: "12-1", worse: true }),
    ]);
    expect(json.sessions[12].commit).toBe(commitOf(13));
    const csv = (await cli(["history", "history.jsonl", "--format", "csv"], { cwd: dir })).stdout
      .trim()
      .split("\n");
    expect(csv[0]).toBe("session,commit,recorded_at,run,value,excluded");
    expect(csv).toHaveLength(1 + 60);
    expect(csv[6]).toMatch(/^2-1,0+2,2026-11-01T02:00:00.000Z,2,[\d.]+,true$/);
  });

  it("refuses a bad file naming the line and field, and bad flags with usage", async () => {
    const bad = await cli(["history", "bad.jsonl"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "history bad.jsonl line 3: field session: Invalid input: expected object, received undefined\n",
    );
    const metric = await cli(["history", "history.jsonl", "--metric", "ttft_p97"], { cwd: dir });
    expect(metric.code).toBe(2);
    expect(metric.stderr).toContain('--metric: unknown metric "ttft_p97"');
    expect((await cli(["history", "missing.jsonl"], { cwd: dir })).stderr).toBe(
      "history missing.jsonl: not a file\n",
    );
  });
});
