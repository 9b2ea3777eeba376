import { describe, expect, it } from "vitest";
import { checkCacheState, designedSharedTokens } from "../../src/metrics/cache-check.js";
import { computeSessionMetrics } from "../../src/metrics/session-metrics.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";
import { requestRecord } from "./records.js";

const base = requestRecord({
  chunksUs: [1000, 2000],
  endMs: 3,
  promptTokens: 256,
  outputTokens: 2,
  targetInputTokens: 256,
  maxTokens: 2,
});

const requests = (count: number, extra: (i: number) => Partial<RequestRecord> = () => ({})) =>
  Array.from({ length: count }, (_, i) => ({ ...base, index: i, sentMs: i, ...extra(i) }));

const fresh = { policy: "fresh" as const, cacheReset: false, firstTurns: null };

describe("the cache-state check of a run", () => {
  it("flags a synthetic fresh run that hit the cache: its dataset shares nothing", () => {
    const records = requests(40);
    const warm = checkCacheState({ ...fresh, records, sharing: { kind: "none" }, serverHitRate: 0.96 });
    expect(warm.status).toBe("flagged");
    // Nothing by design, 32 tokens of chat template per 256-token prompt.
    expect(warm.designedHitRate).toBeCloseTo(32 / 256, 10);
    expect(warm.reason).toMatch(
      /^warm cache in a prefix: fresh run: prefix-cache hit rate 96\.0% \(the server's counters\) against at most 12\.5% its dataset shares by design \(nothing, 32 tokens of template per request\): the server kept an earlier run's cache \(it ignores cache_salt, and the reset was refused\)/,
    );
    expect(warm.reason).toContain("prefix: reuse");
    const cold = checkCacheState({ ...fresh, records, sharing: { kind: "none" }, serverHitRate: 0.06 });
    expect(cold).toMatchObject({ status: "passed", hitRate: 0.06, hitRateSource: "server" });
    // Up to the bound plus the 5-point margin passes; beyond it is flagged.
    expect(
      checkCacheState({ ...fresh, records, sharing: { kind: "none" }, serverHitRate: 0.17 }).status,
    ).toBe("passed");
    expect(
      checkCacheState({ ...fresh, records, sharing: { kind: "none" }, serverHitRate: 0.18 }).status,
    ).toBe("flagged");
  });

  it("allows a shared-prefix run its groups' prefixes after each group's first request", () => {
    // 4 groups of a 192-token prefix, 10 requests each: 36 requests can find the prefix cached.
    const records = requests(40, (i) => ({ prefixGroup: i % 4 }));
    expect(designedSharedTokens(records, { kind: "groups", tokens: 192 })).toBe(36 * 192);
    const sharing = { kind: "groups", tokens: 192 } as const;
    const designed = (36 * 192 + 32 * 40) / (40 * 256);
    const passed = checkCacheState({ ...fresh, records, sharing, serverHitRate: 0.7 });
    expect(passed.status).toBe("passed");
    expect(passed.designedHitRate).toBeCloseTo(designed, 10);
    expect(checkCacheState({ ...fresh, records, sharing, serverHitRate: 0.97 }).status).toBe("flagged");
  });

  it("allows a session its conversation so far, and its first turn the common system prompt", () => {
    // Two sessions of 3 turns: each turn's prompt is the last one's prompt and answer plus 50 tokens.
    const records: RequestRecord[] = [];
    for (const session of [0, 1])
      for (const turn of [0, 1, 2])
        records.push({
          ...base,
          index: records.length,
          promptTokens: 150 + turn * 52,
          outputTokens: 2,
          session: { index: session, turn, turns: 3, toolRound: 0 },
        });
    const sharing = { kind: "conversation", firstTurnTokens: 101 } as const;
    // First turns 101 each; later turns the previous prompt + answer (152, 204).
    expect(designedSharedTokens(records, sharing)).toBe(2 * (101 + 152 + 204));
    expect(checkCacheState({ ...fresh, records, sharing, serverHitRate: 0.5 }).status).toBe("passed");
    // The first-turn check of the session metrics flags on its own, with the counters within the bound.
    const flaggedFirstTurns = { firstTurns: 10, aboveSharedPrefix: 8, flagged: true, checked: true };
    const check = checkCacheState({
      ...fresh,
      records,
      sharing,
      serverHitRate: 0.5,
      firstTurns: flaggedFirstTurns,
    });
    expect(check.status).toBe("flagged");
    expect(check.reason).toContain("8 of 10 sessions' first turns were served from the prefix cache");
  });

  it("counts a task set's prompts again once a run asks more than it holds", () => {
    const records = requests(30);
    expect(designedSharedTokens(records, { kind: "repeats", every: 20 })).toBe(10 * 256);
  });

  it("says not checked, and why, where no check is possible", () => {
    const records = requests(10);
    const trace = checkCacheState({
      ...fresh,
      records,
      sharing: { kind: "unknown", why: "a trace's requests share prefix blocks by design" },
      serverHitRate: 0.9,
    });
    expect(trace).toMatchObject({
      status: "not-checked",
      hitRate: 0.9,
      designedHitRate: null,
      reason: "a trace's requests share prefix blocks by design",
    });
    expect(
      checkCacheState({ ...fresh, policy: "reuse", records, sharing: { kind: "none" }, serverHitRate: 0.9 }),
    ).toMatchObject({ status: "not-checked", reason: "prefix: reuse measures a warm cache on purpose" });
    expect(
      checkCacheState({ ...fresh, records, sharing: { kind: "none" }, serverHitRate: null }),
    ).toMatchObject({ status: "not-checked", hitRate: null });
    // Without the server's counters, the usage's cached_tokens stand in.
    const usage = checkCacheState({
      ...fresh,
      records: requests(10, () => ({ cachedTokens: 240 })),
      sharing: { kind: "none" },
      serverHitRate: null,
    });
    expect(usage).toMatchObject({ status: "flagged", hitRate: 240 / 256, hitRateSource: "usage" });
  });

  it("reports a trace's first-turn check as not checked, not as passed", () => {
    const records = requests(4, (i) => ({
      cachedTokens: 200,
      session: { index: i, turn: 0, turns: 1, toolRound: 0 },
    }));
    const options = { durationS: 1, serverHitRate: null };
    const trace = computeSessionMetrics(records, { ...options, sharedPrefixTokens: null })!;
    expect(trace.contamination).toEqual({
      firstTurns: 4,
      aboveSharedPrefix: 0,
      flagged: false,
      checked: false,
    });
    const generated = computeSessionMetrics(records, { ...options, sharedPrefixTokens: 0 })!;
    expect(generated.contamination).toEqual({
      firstTurns: 4,
      aboveSharedPrefix: 4,
      flagged: true,
      checked: true,
    });
  });

  it("takes first turns cached into their own text for contamination, not a template's shared head", () => {
    // A 200-token common system prompt (+1 role token) and a 40-token first message in a 300-token
    // prompt: the other 59 tokens are the template and declared tools, the same for every session.
    const firstTurn = (cachedTokens: number, i: number) =>
      requestRecord({
        index: i,
        promptTokens: 300,
        targetInputTokens: 240,
        cachedTokens,
        session: { index: i, turn: 0, turns: 1, toolRound: 0 },
      });
    const options = { durationS: 1, serverHitRate: null, sharedPrefixTokens: 201 };
    // The system prompt and the tools cached (256 tokens): by design.
    const shared = computeSessionMetrics(
      [0, 1, 2].map((i) => firstTurn(256, i)),
      options,
    )!;
    expect(shared.contamination).toMatchObject({ firstTurns: 3, aboveSharedPrefix: 0, flagged: false });
    // Everything but the last partial block cached: the message itself was in the cache.
    const warm = computeSessionMetrics(
      [0, 1, 2].map((i) => firstTurn(288, i)),
      options,
    )!;
    expect(warm.contamination).toMatchObject({ firstTurns: 3, aboveSharedPrefix: 3, flagged: true });
    // A first message too short to tell apart from the template is not counted.
    const short = requestRecord({ ...firstTurn(288, 0), targetInputTokens: 230 });
    expect(computeSessionMetrics([short], options)!.contamination.firstTurns).toBe(0);
  });
});
