import { describe, expect, it } from "vitest";
import { Engine, type EngineRequestSpec } from "../../src/sim/engine.js";
import { applyOverrides, builtInProfile } from "../../src/sim/profile.js";
import { runVirtual, type VirtualArrival } from "../../src/sim/virtual.js";

/**
 * The engine's counters against vLLM's accounting (vllm/v1/metrics/loggers.py @ v0.11.0 and the 0.12+
 * line, vllm/v1/metrics/stats.py, vllm/v1/core/kv_cache_manager.py), on virtual time.
 */
const noiseless = builtInProfile("noiseless");

function prompt(length: number, offset = 0): number[] {
  return Array.from({ length }, (_, i) => (i + offset) % 9000);
}

function spec(id: string, promptTokens: number[], maxTokens: number, extra: Partial<EngineRequestSpec> = {}) {
  return { id, promptTokens, maxTokens, ignoreEos: true, ...extra };
}

describe("vLLM's accounting", () => {
  it("keeps prefix-cache re-lookups by preempted requests out of the counters (vLLM 0.11+)", () => {
    // 16 prompts that share nothing, in a KV cache that forces preemptions.
    const engine = new Engine(builtInProfile("tiny-kv"), 1);
    const arrivals: VirtualArrival[] = Array.from({ length: 16 }, (_, i) => ({
      at: 0,
      spec: spec(`r${i}`, prompt(96, i * 500), 160),
    }));
    runVirtual(engine, arrivals);
    expect(engine.stats.preemptions).toBeGreaterThan(0);
    // Each request is looked up once, at its first scheduling: queries are the prompt tokens, and
    // nothing is shared, so nothing hits (the re-lookups would find the request's own blocks).
    expect(engine.stats.prefixQueries).toBe(16 * 96);
    expect(engine.stats.prefixHits).toBe(0);
  });

  it("request_time_per_output_token observes 0 for a one-token request, decode/(n-1) otherwise", () => {
    const engine = new Engine(noiseless, 1);
    const run = runVirtual(engine, [
      { at: 0, spec: spec("one", prompt(10), 1) },
      { at: 100, spec: spec("five", prompt(10, 3000), 5) },
    ]);
    const tpot = engine.stats.tpot;
    expect(tpot.count).toBe(2);
    const times = run.outcomes.get("five")!.tokenTimes;
    expect(tpot.sum).toBeCloseTo((times[4]! - times[0]!) / 1000 / 4, 12);
    expect(tpot.counts[0]).toBe(2); // both below 10 ms, the one-token request as 0
  });

  it("observes max_tokens, n and the generation maximum at finish, for finished requests only", () => {
    const engine = new Engine(noiseless, 1);
    engine.addRequest(spec("a", prompt(10), 3), 0);
    engine.addRequest(spec("gone", prompt(10, 100), 7), 0);
    expect(engine.stats.maxTokensParam.count).toBe(0);
    let now = 0;
    const plan = engine.beginStep(now)!;
    now += plan.durationMs;
    engine.endStep();
    engine.abort("gone", now);
    while (engine.hasWork()) {
      now += engine.beginStep(now)!.durationMs;
      engine.endStep();
    }
    const s = engine.stats;
    expect([s.maxTokensParam.count, s.maxTokensParam.sum]).toEqual([1, 3]);
    expect([s.nParam.count, s.nParam.sum]).toEqual([1, 1]);
    expect([s.maxGenerationTokens.count, s.maxGenerationTokens.sum]).toEqual([1, 3]);
  });

  it("iteration_tokens_total: prompt length at the first token plus generated tokens, per step with output", () => {
    const engine = new Engine(applyOverrides(noiseless, { max_num_batched_tokens: 256 }), 1);
    runVirtual(engine, [{ at: 0, spec: spec("long", prompt(1000), 4) }]);
    const h = engine.stats.iterationTokens;
    // Three prefill chunks without output are not observed; then 1000 + 1, then three steps of 1.
    expect(h.count).toBe(4);
    expect(h.sum).toBe(1000 + 4);
    expect(h.buckets[0]).toBe(1);
    expect(h.counts[0]).toBe(3); // le=1
    expect(h.counts[8]).toBe(1); // le=1024
  });
});

describe("speculative decoding", () => {
  const profile = builtInProfile("spec-decode");
  const rate = (temperature: number) => {
    const engine = new Engine(profile, 5);
    const arrivals = Array.from({ length: 40 }, (_, i) => ({
      at: 0,
      spec: spec(`r${i}`, prompt(32, i * 100), 64, { temperature, seed: i }),
    }));
    const run = runVirtual(engine, arrivals);
    return { engine, run, s: engine.stats.specDecode };
  };

  it("counts drafts, draft and accepted tokens and accepted per position; acceptance falls with temperature", () => {
    const cold = rate(0);
    const hot = rate(1);
    for (const { engine, run, s } of [cold, hot]) {
      expect(s.drafts).toBeGreaterThan(0);
      expect(s.draftTokens).toBeLessThanOrEqual(s.drafts * 3);
      expect(s.acceptedTokens).toBe(s.acceptedPerPosition.reduce((a, b) => a + b, 0));
      // A draft counts only if the ones before it were accepted: per position, non-increasing.
      for (let i = 1; i < s.acceptedPerPosition.length; i++) {
        expect(s.acceptedPerPosition[i]!).toBeLessThanOrEqual(s.acceptedPerPosition[i - 1]!);
      }
      expect(engine.stats.generationTokens).toBe(40 * 64);
      for (const outcome of run.outcomes.values()) expect(outcome.tokenTimes).toHaveLength(64);
      // One ITL observation per step with output, not per token: fewer than tokens - 1 per request.
      expect(engine.stats.itl.count).toBeLessThan(40 * 63);
    }
    // The first draft is accepted with the profile's chance at that temperature (0.8 at 0, 0.6 at 1);
    // over all draft tokens a chain of 3 accepts (p + p^2 + p^3) / 3: 0.65 and 0.39.
    expect(cold.s.acceptedPerPosition[0]! / cold.s.drafts).toBeCloseTo(0.8, 1);
    expect(hot.s.acceptedPerPosition[0]! / hot.s.drafts).toBeCloseTo(0.6, 1);
    const coldRate = cold.s.acceptedTokens / cold.s.draftTokens;
    const hotRate = hot.s.acceptedTokens / hot.s.draftTokens;
    expect(coldRate).toBeGreaterThan(0.6);
    expect(coldRate).toBeLessThan(0.7);
    expect(hotRate).toBeGreaterThan(0.34);
    expect(hotRate).toBeLessThan(0.45);
    // More accepted tokens per step finish the same work sooner.
    expect(cold.run.endTime).toBeLessThan(hot.run.endTime);
    // Acceptance draws do not change what is generated.
    expect(rate(0).run.endTime).toBe(cold.run.endTime);
  });

  it("off by default: no drafts", () => {
    const engine = new Engine(noiseless, 1);
    runVirtual(engine, [{ at: 0, spec: spec("a", prompt(10), 20) }]);
    expect(engine.stats.specDecode.drafts).toBe(0);
    expect(engine.stats.itl.count).toBe(19);
  });
});
