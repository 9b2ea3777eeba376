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

  it("each kind has the traits its data has (a kind added later is checked by its own tests)", () => {
    // [sessions, scoresAnswers, trace] of the kinds whose traits the rest of the tool relies on.
    const traits: Record<string, [boolean, boolean, boolean]> = {
      synthetic: [false, false, false],
      sharegpt: [false, false, false],
      jsonl: [false, false, false],
      shared_prefix: [false, false, false],
      long_document: [false, false, false],
      tasks: [false, true, false],
      tasks_jsonl: [false, true, false],
      sessions: [true, false, false],
      sharegpt_sessions: [true, false, false],
      mooncake_trace: [true, false, true],
      azure_trace: [true, false, true],
      burstgpt_trace: [true, false, true],
      trace: [true, false, true],
    };
    for (const [type, expected] of Object.entries(traits)) {
      const module = datasetKinds[type as keyof typeof datasetKinds];
      expect([module.sessions, module.scoresAnswers, "trace" in module], type).toEqual(expected);
    }
    // Every trace is a file of sessions (rows without a session are sessions of one).
    for (const [type, module] of Object.entries(datasetKinds))
      if ("trace" in module) expect([module.fileBacked, module.sessions], type).toEqual([true, true]);
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
      `expected one of ${kinds.map((kind) => `"${kind}"`).join(", ")}, got "podman"`,
    );
    expect(kinds.slice(0, 4)).toEqual(["docker", "command", "external", "sim"]);
  });

  it("the state file records the kinds whose launcher leaves a process running, and no other", () => {
    expect(launchedServerKinds).toEqual(expect.arrayContaining(["docker", "command", "sim"]));
    expect(launchedServerKinds).not.toContain("external");
    const server = { id: "a", startedAt: "2026-01-01T00:00:00Z", cell: "c", run: null };
    for (const kind of serverKinds)
      expect(liveServerSchema.safeParse({ ...server, kind }).success, kind).toBe(
        serverKindFacts[kind].launchesProcess,
      );
  });
});
