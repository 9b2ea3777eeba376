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
// Noise off, the start's prefill factor too: the TTFT test checks the profile formula exactly.
const shaped = applyOverrides(builtInProfile("gpu-shaped"), {
  speed_sigma: 0,
  prefill_speed_sigma: 0,
  jitter_sigma: 0,
});

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

  it("past the compute knee the step time grows faster than the batch and throughput flattens before max_num_seqs", () => {
    const closedBatch = (profile: SimProfile, concurrency: number) => {
      const arrivals: VirtualArrival[] = Array.from({ length: concurrency }, (_, i) => ({
        at: 0,
        spec: spec(`r${i}`, prompt(256, i * 300), 128),
      }));
      return runVirtual(new Engine(profile, 1), arrivals);
    };
    const throughput = (profile: SimProfile, concurrency: number) =>
      (concurrency * 128) / closedBatch(profile, concurrency).endTime;
    const memoryOnly = applyOverrides(shaped, { decode_compute_per_token_ms: 0 });
    // The cap is 256; the knee (6 ms / (0.2 - 0.08 - attention) ms) is near 56 sequences.
    expect(shaped.max_num_seqs).toBe(256);
    const [t64, t128, t256] = [64, 128, 256].map((n) => throughput(shaped, n));
    // Flat past the knee: twice and four times the batch add under 10%; the bound is 1 / 0.2 ms per token.
    expect(t128! / t64!).toBeLessThan(1.1);
    expect(t256! / t128!).toBeLessThan(1.05);
    expect(t256!).toBeLessThan(1 / shaped.decode_compute_per_token_ms);
    // Memory-bound only, the same batches still gain 20% and more: the compute term is what bends it.
    expect(throughput(memoryOnly, 256) / throughput(memoryOnly, 128)).toBeGreaterThan(1.2);
    // The decode step time by the formula: max(its memory-bound time, compute x decoded tokens).
    const exact = applyOverrides(builtInProfile("noiseless"), { decode_compute_per_token_ms: 0.05 });
    const decodeGap = (profile: SimProfile, concurrency: number) => {
      const times = closedBatch(profile, concurrency).outcomes.get("r0")!.tokenTimes;
      return times[11]! - times[10]!;
    };
    const memoryBound = applyOverrides(exact, { decode_compute_per_token_ms: 0 });
    const formula = (concurrency: number) =>
      Math.max(decodeGap(memoryBound, concurrency), exact.decode_compute_per_token_ms * concurrency);
    for (const n of [4, 40, 200]) expect(decodeGap(exact, n)).toBeCloseTo(formula(n), 9);
    // Memory-bound at 4 and 40 sequences, compute-bound at 150 and 200: past the knee (near 100) each
    // further sequence costs more than one did below it (superlinear).
    expect(decodeGap(exact, 40)).toBeCloseTo(decodeGap(memoryBound, 40), 9);
    expect(decodeGap(exact, 200)).toBeCloseTo(exact.decode_compute_per_token_ms * 200, 9);
    const slope = (a: number, b: number) => (decodeGap(exact, b) - decodeGap(exact, a)) / (b - a);
    expect(slope(150, 200)).toBeGreaterThan(1.5 * slope(4, 40));
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
