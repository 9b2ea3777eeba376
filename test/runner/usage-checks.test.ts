import { describe, expect, it } from "vitest";
import { checkUsage, maxTokensPerChunk, tokenlessChunksAllowed } from "../../src/runner/request-record.js";

const outcome = (chunks: number, completionTokens: number | null, extra: Record<string, unknown> = {}) => ({
  promptTokens: 4,
  completionTokens,
  cachedTokens: null,
  chunkTokens: null,
  chunkTimes: Array.from({ length: chunks }, (_, index) => index),
  ...extra,
});

describe("checkUsage", () => {
  it("believes usage within the margins", () => {
    expect(checkUsage(outcome(8, 8), 8)).toMatchObject({ outputTokens: 8, source: "usage", issue: null });
    // chat's role chunk plus a finish-reason chunk without tokens
    expect(checkUsage(outcome(8 + tokenlessChunksAllowed, 8), 8).issue).toBeNull();
    // bundled tokens (stream interval, speculative decoding)
    expect(checkUsage(outcome(1, maxTokensPerChunk), 64).issue).toBeNull();
    // no usage at all: the chunks count, with no issue
    expect(checkUsage(outcome(5, null), 8)).toMatchObject({ outputTokens: 5, source: "chunks", issue: null });
  });

  it("names each kind of disagreement and the values", () => {
    expect(checkUsage(outcome(8, 1_000_000), 8)).toMatchObject({
      outputTokens: 8,
      source: "chunks",
      issue: {
        kind: "usage_exceeds_chunks",
        detail: "usage.completion_tokens 1000000 > 16 x 8 chunks received",
      },
    });
    expect(checkUsage(outcome(20, 3), 32)).toMatchObject({
      outputTokens: 20,
      issue: { kind: "usage_below_chunks" },
    });
    expect(checkUsage(outcome(8, 12), 8)).toMatchObject({
      outputTokens: 8,
      issue: {
        kind: "exceeds_max_tokens",
        detail: "usage.completion_tokens 12 > max_tokens 8 over 8 chunks",
      },
    });
    expect(checkUsage(outcome(20_000, null), 8)).toMatchObject({
      outputTokens: 20_000,
      issue: {
        kind: "exceeds_max_tokens",
        detail: "20000 chunks received for max_tokens 8: the server ignored max_tokens",
      },
    });
  });

  it("drops counts that are not non-negative integers", () => {
    for (const bad of [-5, 2.5, 1e300, Number.NaN]) {
      const checked = checkUsage(outcome(8, bad), 8);
      expect(checked, String(bad)).toMatchObject({
        outputTokens: 8,
        source: "chunks",
        issue: { kind: "invalid_usage" },
      });
    }
    expect(checkUsage(outcome(8, 8, { promptTokens: -1 }), 8)).toMatchObject({
      promptTokens: null,
      issue: { kind: "invalid_usage", detail: "usage.prompt_tokens -1 is not a non-negative integer" },
    });
    expect(checkUsage(outcome(3, 3, { chunkTokens: [2, -1, 2] }), 8)).toMatchObject({
      chunkTokens: null,
      issue: { kind: "invalid_usage" },
    });
  });
});
