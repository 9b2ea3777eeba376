import { describe, expect, it } from "vitest";
import { Engine, type EngineRequestSpec } from "../../src/sim/engine.js";
import { applyOverrides, builtInProfile, type SimProfile } from "../../src/sim/profile.js";
import { runVirtual, type VirtualArrival } from "../../src/sim/virtual.js";

/**
 * The engine's load shape on virtual time (src/sim/virtual.ts), with the `gpu-shaped` profile without
 * noise: throughput bends well before max_num_seqs, prefill grows faster than the prompt, and the
 * chunked-prefill token budget trades TTFT against ITL as vLLM's docs describe
 * (docs/configuration/optimization.md, "Chunked Prefill": a smaller max_num_batched_tokens favours ITL,
 * a larger one TTFT).
 */
const shaped = applyOverrides(builtInProfile("gpu-shaped"), { speed_sigma: 0, jitter_sigma: 0 });

function prompt(length: number, offset = 0): number[] {
  return Array.from({ length }, (_, i) => (i + offset) % 9000);
}

function spec(id: string, promptTokens: number[], maxTokens: number): EngineRequestSpec {
  return { id, promptTokens, maxTokens, ignoreEos: true };
}

describe("load shape (gpu-shaped profile, virtual time)", () => {
  it("throughput bends well before max_num_seqs: tokens/s per sequence falls as the batch grows", () => {
    const throughput = (concurrency: number) => {
      const engine = new Engine(shaped, 1);
      // A closed batch of `concurrency` sequences decoding together.
      const arrivals: VirtualArrival[] = Array.from({ length: concurrency }, (_, i) => ({
        at: 0,
        spec: spec(`r${i}`, prompt(256, i * 300), 128),
      }));
      const run = runVirtual(engine, arrivals);
      return (concurrency * 128) / run.endTime;
    };
    const levels = [1, 8, 32, 64, 128, 256];
    const t = levels.map(throughput);
    const perSequence = t.map((value, i) => value / levels[i]!);
    for (let i = 1; i < levels.length; i++) {
      expect(t[i]!).toBeGreaterThan(t[i - 1]!); // still rising: the cap (256) is not what bends it
      expect(perSequence[i]!).toBeLessThan(perSequence[i - 1]!);
    }
    // At 128 sequences, less than half of what 8 would give scaled linearly; at 256 under a third.
    expect(t[4]!).toBeLessThan(0.5 * (128 / 8) * t[1]!);
    expect(t[5]!).toBeLessThan((1 / 3) * (256 / 8) * t[1]!);
  });

  it("a long prompt's TTFT grows faster than its length (attention), by the profile formula", () => {
    const ttft = (length: number, profile: SimProfile) =>
      runVirtual(new Engine(profile, 1), [{ at: 0, spec: spec("a", prompt(length), 2) }]).outcomes.get("a")!
        .tokenTimes[0]!;
    const p = shaped;
    // Formula: per chunk of c tokens after s computed ones, overhead + linear x c + pair x (c s + c(c-1)/2).
    const formula = (length: number) => {
      let total = 0;
      for (let s = 0; s < length; s += p.max_num_batched_tokens) {
        const c = Math.min(p.max_num_batched_tokens, length - s);
        total +=
          p.step_overhead_ms +
          p.prefill_per_token_ms * c +
          p.prefill_attention_per_token_pair_ms * (c * s + (c * (c - 1)) / 2);
      }
      return total;
    };
    for (const length of [256, 1000, 2048, 4000]) expect(ttft(length, p)).toBeCloseTo(formula(length), 9);
    // Four times the prompt: more than four times the prefill (minus the fixed step costs).
    const prefillOnly = (length: number) =>
      ttft(length, p) - Math.ceil(length / p.max_num_batched_tokens) * p.step_overhead_ms;
    expect(prefillOnly(4000) / prefillOnly(1000)).toBeGreaterThan(4.5);
    // Without the attention term the growth is linear.
    const linear = applyOverrides(p, { prefill_attention_per_token_pair_ms: 0 });
    const linearPrefill = (length: number) =>
      ttft(length, linear) - Math.ceil(length / p.max_num_batched_tokens) * p.step_overhead_ms;
    expect(linearPrefill(4000) / linearPrefill(1000)).toBeCloseTo(4, 9);
  });

  it("chunked prefill: a smaller token budget gives a better ITL, a larger one a better TTFT", () => {
    const measure = (budget: number) => {
      const engine = new Engine(applyOverrides(shaped, { max_num_batched_tokens: budget }), 1);
      const arrivals: VirtualArrival[] = [
        // 16 sequences decoding all along...
        ...Array.from({ length: 16 }, (_, i) => ({ at: 0, spec: spec(`d${i}`, prompt(64, i * 100), 400) })),
        // ...while long prompts arrive one after another.
        ...Array.from({ length: 6 }, (_, i) => ({
          at: 200 + i * 400,
          spec: spec(`long${i}`, prompt(3000, 2000 + i * 3000), 4),
        })),
      ];
      const run = runVirtual(engine, arrivals);
      const gaps: number[] = [];
      for (let i = 0; i < 16; i++) {
        const times = run.outcomes.get(`d${i}`)!.tokenTimes;
        for (let k = 1; k < times.length; k++) gaps.push(times[k]! - times[k - 1]!);
      }
      const ttfts = Array.from({ length: 6 }, (_, i) => {
        const o = run.outcomes.get(`long${i}`)!;
        return o.tokenTimes[0]! - o.arrival;
      });
      return {
        itlMax: Math.max(...gaps),
        ttftMean: ttfts.reduce((a, b) => a + b, 0) / ttfts.length,
      };
    };
    const small = measure(512);
    const large = measure(4096);
    expect(small.itlMax).toBeLessThan(large.itlMax * 0.5);
    expect(small.ttftMean).toBeGreaterThan(large.ttftMean * 1.2);
  });
});
