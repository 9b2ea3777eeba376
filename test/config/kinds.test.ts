import { describe, expect, it } from "vitest";
import { datasetReadsFile, datasetSchema, isFileBacked, serverSchema } from "../../src/config/schema.js";
import { serverKindFacts, serverKinds } from "../../src/config/server-kinds.js";

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
});
