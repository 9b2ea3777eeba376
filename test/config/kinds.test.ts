import { describe, expect, it } from "vitest";
import { datasetKinds } from "../../src/config/dataset-kinds.js";
import { datasetReadsFile, datasetSchema, isFileBacked, serverSchema } from "../../src/config/schema.js";
import { launchedServerKinds, serverKindFacts, serverKinds } from "../../src/config/server-kinds.js";
import { liveServerSchema } from "../../src/server/state.js";

const shapeOf = (option: unknown) => (option as { shape: Record<string, unknown> }).shape;

describe("dataset kinds", () => {
  it("a kind is file-backed exactly when its schema branch has a path", () => {
    const options = (datasetSchema as unknown as { options: unknown[] }).options;
    const fromSchema = Object.fromEntries(
      options.map((option) => {
        const shape = shapeOf(option);
        return [(shape.type as { value: string }).value, "path" in shape];
      }),
    );
    expect(fromSchema).toEqual(datasetReadsFile);
    expect(isFileBacked({ type: "jsonl", path: "a.jsonl" })).toBe(true);
    expect(
      isFileBacked({ type: "synthetic", input_tokens: 1, output_tokens: 1 } as Parameters<
        typeof isFileBacked
      >[0]),
    ).toBe(false);
  });

  it("the session and scored kinds are the ones their traits name", () => {
    const withTrait = (trait: "sessions" | "scoresAnswers") =>
      Object.entries(datasetKinds)
        .filter(([, module]) => module[trait])
        .map(([type]) => type);
    expect(withTrait("sessions")).toEqual([
      "sessions",
      "sharegpt_sessions",
      "mooncake_trace",
      "azure_trace",
      "burstgpt_trace",
      "trace",
    ]);
    expect(withTrait("scoresAnswers")).toEqual(["tasks", "tasks_jsonl"]);
    // Every trace is a file of sessions (rows without a session are sessions of one).
    const traces = Object.entries(datasetKinds).filter(([, module]) => "trace" in module);
    expect(traces.map(([type]) => type)).toEqual([
      "mooncake_trace",
      "azure_trace",
      "burstgpt_trace",
      "trace",
    ]);
    for (const [, module] of traces) expect([module.fileBacked, module.sessions]).toEqual([true, true]);
  });
});

describe("server kinds", () => {
  it("every branch of the schema has its facts, and messages list the kinds from the branches", () => {
    const options = (serverSchema as unknown as { options: unknown[] }).options;
    const kinds = options.map((option) => (shapeOf(option).kind as { value: string }).value);
    expect(serverKinds).toEqual(kinds);
    expect(Object.keys(serverKindFacts)).toEqual(kinds);
    const result = serverSchema.safeParse({ kind: "podman" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(
      'expected one of "docker", "command", "external", "sim", got "podman"',
    );
  });

  it("the state file records the kinds whose launcher leaves a process running, and no other", () => {
    expect(launchedServerKinds).toEqual(["docker", "command", "sim"]);
    const server = { id: "a", startedAt: "2026-01-01T00:00:00Z", cell: "c", run: null };
    for (const kind of launchedServerKinds)
      expect(liveServerSchema.safeParse({ ...server, kind }).success).toBe(true);
    expect(liveServerSchema.safeParse({ ...server, kind: "external" }).success).toBe(false);
  });
});
