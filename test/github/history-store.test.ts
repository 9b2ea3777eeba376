import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultHistoryLimits, parseHistory, serializeHistory } from "../../src/compare/history/history.js";
import { createGitHubClient } from "../../src/github/client.js";
import {
  createArtifactHistoryStore,
  createBranchHistoryStore,
  HistoryConflictError,
  historyArtifactFile,
} from "../../src/github/history-store.js";
import { record, session } from "../compare/history/history-fixtures.js";
import { FakeGitHub, fastCallPolicy, serverError } from "./fake-github.js";

const fake = new FakeGitHub();
let baseUrl: string;
const path = "vllm-perf-gate/history.jsonl";

beforeAll(async () => {
  baseUrl = await fake.start();
  fake.users.set("ghs_base", { login: "github-actions[bot]", type: "Bot", installation: true });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.branches.clear();
  fake.commits.clear();
  fake.gitAnswers.length = 0;
  fake.faults.length = 0;
});

function store(options: { maxAttempts?: number; maxBytes?: number; maxSessions?: number } = {}) {
  return createBranchHistoryStore(createGitHubClient("ghs_base", baseUrl, { policy: fastCallPolicy }), {
    owner: fake.owner,
    repo: fake.repo,
    branch: "perf-history",
    path,
    sleep: async () => {},
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    limits: {
      ...defaultHistoryLimits,
      ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
      ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
    },
  });
}

describe("branch history store (contents API)", () => {
  it("a 502 on the write is retried: the session is appended once", async () => {
    await store().append([record(session(1), [100])]);
    const write = fake.fault({ method: "PUT", path: /\/contents\//, ...serverError() });
    const outcome = await store().append([record(session(2), [101])]);
    expect(write.hits).toBe(1);
    expect(outcome).toMatchObject({ appended: 1, conflicts: 0 });
    expect(parseHistory(fake.branchFile("perf-history", path)!, "t").map((r) => r.session.id)).toEqual([
      "1-1",
      "2-1",
    ]);
  });

  it("a write that keeps failing throws with the call and the status", async () => {
    await store().append([record(session(1), [100])]);
    fake.fault({ method: "PUT", path: /\/contents\//, times: Number.POSITIVE_INFINITY, ...serverError() });
    await expect(store().append([record(session(2), [101])])).rejects.toMatchObject({ status: 502 });
  });

  it("reads an absent branch as an empty history, then creates the branch as an orphan commit", async () => {
    expect((await store().read()).records).toEqual([]);
    const outcome = await store().append([record(session(1), [100, 101])]);
    expect(outcome.appended).toBe(1);
    const head = fake.commits.get(fake.branches.get("perf-history")!);
    expect(head?.parents).toEqual([]);
    expect([...head!.files.keys()]).toEqual([path]);
    expect(fake.gitAnswers).toEqual([
      "GET contents 404",
      "GET contents 404",
      "GET ref 404",
      "POST tree 201",
      "POST commit 201",
      "POST ref 201",
    ]);
    const read = await store().read();
    expect(read.records.map((r) => r.session.id)).toEqual(["1-1"]);
    expect(read.sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it("appends with the file's sha, and a re-run of the same session writes nothing", async () => {
    await store().append([record(session(1), [100])]);
    await store().append([record(session(2), [101])]);
    const again = await store().append([record(session(2), [101])]);
    expect(again.appended).toBe(0);
    const text = fake.branchFile("perf-history", path)!;
    expect(parseHistory(text, "t").map((r) => r.session.id)).toEqual(["1-1", "2-1"]);
    expect(fake.gitAnswers.filter((a) => a.startsWith("PUT"))).toEqual(["PUT contents 200"]);
  });

  it("loses no record when four writers append at once (409 on the stale sha, retried)", async () => {
    await store().append([record(session(1), [100])]);
    fake.gitAnswers.length = 0;
    fake.holdContentReads(4);
    const outcomes = await Promise.all(
      [2, 3, 4, 5].map((id) => store().append([record(session(id), [100 + id])])),
    );
    const ids = parseHistory(fake.branchFile("perf-history", path)!, "t").map((r) => r.session.id);
    expect(ids.sort()).toEqual(["1-1", "2-1", "3-1", "4-1", "5-1"]);
    expect(fake.gitAnswers.filter((a) => a === "PUT contents 409").length).toBeGreaterThanOrEqual(3);
    expect(outcomes.reduce((s, o) => s + o.conflicts, 0)).toBeGreaterThanOrEqual(3);
  });

  it("loses no record when two writers both find no branch (422 on the second ref, retried as an update)", async () => {
    fake.holdContentReads(2);
    await Promise.all([1, 2].map((id) => store().append([record(session(id), [100])])));
    const ids = parseHistory(fake.branchFile("perf-history", path)!, "t").map((r) => r.session.id);
    expect(ids.sort()).toEqual(["1-1", "2-1"]);
    expect(fake.gitAnswers).toContain("POST ref 422");
  });

  it("gives up after maxAttempts naming the limit", async () => {
    await store().append([record(session(1), [100])]);
    // Another writer commits between every read and write.
    const original = fake.gitAnswers.push.bind(fake.gitAnswers);
    fake.gitAnswers.push = (...items: string[]) => {
      if (items[0] === "GET contents 200")
        fake.commitFile("perf-history", path, serializeHistory([record(session(fake.id()), [1])]));
      return original(...items);
    };
    try {
      await expect(store({ maxAttempts: 3 }).append([record(session(2), [100])])).rejects.toThrow(
        HistoryConflictError,
      );
      await expect(store({ maxAttempts: 2 }).append([record(session(3), [100])])).rejects.toThrow(
        /changed it 2 times in a row; gave up \(limit maxHistoryAppendAttempts 2\)/,
      );
    } finally {
      // The own property goes; Array.prototype.push answers again.
      delete (fake.gitAnswers as { push?: unknown }).push;
    }
  });

  it("compacts to the session bound, saying so in the commit message", async () => {
    for (const id of [1, 2, 3]) await store({ maxSessions: 2 }).append([record(session(id), [100])]);
    const ids = parseHistory(fake.branchFile("perf-history", path)!, "t").map((r) => r.session.id);
    expect(ids).toEqual(["2-1", "3-1"]);
    const head = fake.commits.get(fake.branches.get("perf-history")!);
    expect(head?.message).toMatch(/compacted: 1 oldest session\(s\) dropped/);
  });

  it("reads a history over 1 MB through the raw media type and appends to it with its blob sha", async () => {
    const many = Array.from({ length: 4000 }, (_, i) =>
      record(session(i + 1), [100, 101, 102, 103, 104, 105]),
    );
    fake.commitFile("perf-history", path, serializeHistory(many));
    expect(fake.branchFile("perf-history", path)!.length).toBeGreaterThan(1024 * 1024);
    const read = await store().read();
    expect(read.records).toHaveLength(4000);
    expect(fake.gitAnswers).toEqual(["GET contents 200", "GET contents raw 200"]);
    await store().append([record(session(5000), [99])]);
    expect(fake.gitAnswers).toContain("PUT contents 200");
    // Compaction keeps the newest maxHistorySessions (200) sessions.
    const kept = parseHistory(fake.branchFile("perf-history", path)!, "t");
    expect(kept).toHaveLength(200);
    expect(kept.at(-1)?.session.id).toBe("5000-1");
  });

  it("refuses a corrupted or oversized history on read, naming the file and the limit", async () => {
    fake.commitFile("perf-history", path, `${serializeHistory([record(session(1), [100])])}garbage\n`);
    await expect(store().read()).rejects.toThrow(
      /history acme\/serving@perf-history:vllm-perf-gate\/history\.jsonl line 2: not JSON/,
    );
    fake.commitFile(
      "perf-history",
      path,
      serializeHistory([1, 2, 3].map((id) => record(session(id), [100]))),
    );
    await expect(store({ maxBytes: 200 }).read()).rejects.toThrow(
      /bytes, more than the 200 allowed \(limit maxHistoryBytes\)/,
    );
  });
});

describe("artifact history store (fallback)", () => {
  it("carries the previous artifact's history forward into this job's artifact", async () => {
    const previous = await mkdtemp(join(tmpdir(), "hist-prev-"));
    const output = await mkdtemp(join(tmpdir(), "hist-out-"));
    try {
      const empty = createArtifactHistoryStore({ previousDir: previous, outputDir: output });
      expect((await empty.read()).records).toEqual([]);
      await writeFile(join(previous, historyArtifactFile), serializeHistory([record(session(1), [100])]));
      const outcome = await createArtifactHistoryStore({ previousDir: previous, outputDir: output }).append([
        record(session(2), [101]),
      ]);
      expect(outcome.appended).toBe(1);
      const written = parseHistory(await readFile(join(output, historyArtifactFile), "utf8"), "t");
      expect(written.map((r) => r.session.id)).toEqual(["1-1", "2-1"]);
      await writeFile(join(previous, historyArtifactFile), "{}\n");
      await expect(
        createArtifactHistoryStore({ previousDir: previous, outputDir: output }).read(),
      ).rejects.toThrow(/baseline artifact vllm-perf-gate-history\.jsonl line 1: field schemaVersion/);
    } finally {
      await rm(previous, { recursive: true, force: true });
      await rm(output, { recursive: true, force: true });
    }
  });
});
