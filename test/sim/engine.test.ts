import { describe, expect, it } from "vitest";
import { Engine, type EngineRequestSpec, eosTokenId } from "../../src/sim/engine.js";
import { applyOverrides, builtInProfile, type SimProfile } from "../../src/sim/profile.js";
import { runVirtual, type VirtualArrival } from "../../src/sim/virtual.js";

const noiseless = builtInProfile("noiseless");

function prompt(length: number, offset = 0): number[] {
  return Array.from({ length }, (_, i) => (i + offset) % 9000);
}

function spec(
  id: string,
  promptTokens: number[],
  maxTokens: number,
  extra: Partial<EngineRequestSpec> = {},
): EngineRequestSpec {
  return { id, promptTokens, maxTokens, ignoreEos: true, ...extra };
}

function burst(count: number, promptLen: number, maxTokens: number, distinct = true): VirtualArrival[] {
  return Array.from({ length: count }, (_, i) => ({
    at: 0,
    spec: spec(`r${i}`, prompt(promptLen, distinct ? i * 1000 : 0), maxTokens),
  }));
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

describe("engine on virtual time", () => {
  it("times a lone request by the profile formula", () => {
    const p = noiseless;
    const engine = new Engine(p, 7);
    const run = runVirtual(engine, [{ at: 0, spec: spec("a", prompt(200), 4) }]);
    const times = run.outcomes.get("a")!.tokenTimes;
    const ttft = p.step_overhead_ms + p.prefill_per_token_ms * 200;
    expect(times[0]).toBeCloseTo(ttft, 9);
    // Decode step k: the sequence's context is the prompt plus k outputs.
    for (let k = 1; k < 4; k++) {
      const itl = p.step_overhead_ms + p.decode_per_seq_ms + p.attention_per_context_token_ms * (200 + k);
      expect(times[k]! - times[k - 1]!).toBeCloseTo(itl, 9);
    }
    expect(run.outcomes.get("a")!.finishReason).toBe("length");
  });

  it("is deterministic for a seed and differs across seeds through the speed factor", () => {
    const p = builtInProfile("small-gpu");
    const end = (seed: number) => runVirtual(new Engine(p, seed), burst(20, 64, 32)).endTime;
    expect(end(3)).toBe(end(3));
    expect(end(3)).not.toBe(end(4));
    const factors = Array.from(
      { length: 200 },
      (_, seed) => new Engine(applyOverrides(p, { speed_sigma: 0.1 }), seed).speedFactor,
    );
    const logs = factors.map(Math.log);
    const sd = Math.sqrt(mean(logs.map((x) => (x - mean(logs)) ** 2)));
    expect(sd).toBeGreaterThan(0.07);
    expect(sd).toBeLessThan(0.13);
  });

  it("draws a per-start prefill factor that scales the prefill cost only, from the seed", () => {
    const p = applyOverrides(noiseless, { prefill_speed_sigma: 0.1 });
    const engine = new Engine(p, 11);
    expect(engine.prefillFactor).not.toBe(1);
    expect(new Engine(p, 11).prefillFactor).toBe(engine.prefillFactor);
    const times = runVirtual(engine, [{ at: 0, spec: spec("a", prompt(200), 3) }]).outcomes.get(
      "a",
    )!.tokenTimes;
    // TTFT: the step's fixed cost as profiled, its prefill part times the start's factor.
    expect(times[0]).toBeCloseTo(p.step_overhead_ms + p.prefill_per_token_ms * 200 * engine.prefillFactor, 9);
    // A decode step has no prefill: as the formula says, whatever the factor.
    const itl = p.step_overhead_ms + p.decode_per_seq_ms + p.attention_per_context_token_ms * 201;
    expect(times[1]! - times[0]!).toBeCloseTo(itl, 9);
    const logs = Array.from({ length: 400 }, (_, seed) => Math.log(new Engine(p, seed).prefillFactor));
    const sd = Math.sqrt(mean(logs.map((x) => (x - mean(logs)) ** 2)));
    expect(sd).toBeGreaterThan(0.085);
    expect(sd).toBeLessThan(0.115);
  });

  it("makes a share of starts slow (the fat tail), each of their steps by slow_start_factor", () => {
    const p = applyOverrides(noiseless, { slow_start_share: 0.1, slow_start_factor: 1.2 });
    const factors = Array.from({ length: 1000 }, (_, seed) => new Engine(p, seed).speedFactor);
    expect(new Set(factors)).toEqual(new Set([1, 1.2]));
    const slow = factors.filter((factor) => factor === 1.2).length;
    // Binomial(1000, 0.1): sd 9.5, so 70..130 is more than 3 sd either side.
    expect(slow).toBeGreaterThan(70);
    expect(slow).toBeLessThan(130);
    expect(Array.from({ length: 200 }, (_, seed) => new Engine(noiseless, seed).speedFactor)).toEqual(
      Array(200).fill(1),
    );
  });

  it("keeps a seed's step jitter whatever the start's prefill and slow-start knobs", () => {
    const jittery = applyOverrides(noiseless, { jitter_sigma: 0.05 });
    const decodeSteps = (profile: SimProfile) => {
      const run = runVirtual(new Engine(profile, 5), [{ at: 0, spec: spec("a", prompt(64), 12) }]);
      const times = run.outcomes.get("a")!.tokenTimes;
      return times.slice(1).map((time, k) => time - times[k]!);
    };
    const withStartNoise = applyOverrides(jittery, { prefill_speed_sigma: 0.2, slow_start_share: 0 });
    const expected = decodeSteps(jittery);
    // The same jitter draws step by step (times differ only by the first token's, in the last digits).
    for (const [k, step] of decodeSteps(withStartNoise).entries()) expect(step).toBeCloseTo(expected[k]!, 9);
    expect(new Set(expected.map((step) => step.toFixed(6))).size).toBeGreaterThan(1);
  });

  it("queues requests past max_num_seqs, FCFS", () => {
    const p = applyOverrides(noiseless, { max_num_seqs: 4 });
    const engine = new Engine(p, 1);
    const run = runVirtual(engine, burst(10, 32, 20));
    expect(Math.max(...run.samples.map((s) => s.running))).toBe(4);
    expect(run.samples[0]!.waiting).toBe(6);
    const firstTokens = Array.from({ length: 10 }, (_, i) => run.outcomes.get(`r${i}`)!.tokenTimes[0]!);
    // The fifth request waits for a whole generation of the first four.
    expect(firstTokens[4]!).toBeGreaterThan(firstTokens[3]! + 19 * p.step_overhead_ms);
    for (let i = 1; i < 10; i++) expect(firstTokens[i]!).toBeGreaterThanOrEqual(firstTokens[i - 1]!);
    expect(engine.stats.success.length).toBe(10);
  });

  it("splits long prompts across steps within max_num_batched_tokens (chunked prefill)", () => {
    const p = applyOverrides(noiseless, { max_num_batched_tokens: 256 });
    const engine = new Engine(p, 1);
    const run = runVirtual(engine, [{ at: 0, spec: spec("long", prompt(1000), 2) }]);
    // 1000 prompt tokens in 256-token chunks: 4 steps before the first token.
    expect(run.steps).toBe(4 + 1);
    expect(run.outcomes.get("long")!.tokenTimes[0]).toBeCloseTo(
      4 * p.step_overhead_ms + 1000 * p.prefill_per_token_ms,
      9,
    );
  });

  it("reuses cached prompt blocks: more hits and lower TTFT, unless salted differently", () => {
    const p = noiseless;
    const engine = new Engine(p, 1);
    const shared = prompt(512);
    const first = runVirtual(engine, [{ at: 0, spec: spec("a", shared, 4) }]);
    const hitsBefore = engine.stats.prefixHits;
    const second = runVirtual(engine, [{ at: 0, spec: spec("b", shared, 4) }], first.endTime);
    const ttftA = first.outcomes.get("a")!.tokenTimes[0]!;
    const b = second.outcomes.get("b")!;
    const ttftB = b.tokenTimes[0]! - first.endTime;
    expect(hitsBefore).toBe(0);
    // 511 computable tokens -> 31 full blocks of 16 can be reused; the last block is recomputed.
    expect(engine.stats.prefixHits).toBe(31 * 16);
    expect(b.cachedPromptTokens).toBe(31 * 16);
    expect(engine.stats.prefixQueries).toBe(1024);
    expect(ttftB).toBeCloseTo(p.step_overhead_ms + p.prefill_per_token_ms * (512 - 31 * 16), 9);
    expect(ttftB).toBeLessThan(ttftA);
    const salted = runVirtual(
      engine,
      [{ at: 0, spec: spec("c", shared, 4, { cacheSalt: "run-2" }) }],
      second.endTime,
    );
    expect(salted.outcomes.get("c")!.cachedPromptTokens).toBe(0);
    expect(engine.stats.prefixHits).toBe(31 * 16);
    expect(engine.resetPrefixCache()).toBe(true);
    const afterReset = runVirtual(engine, [{ at: 0, spec: spec("d", shared, 4) }], salted.endTime);
    expect(afterReset.outcomes.get("d")!.cachedPromptTokens).toBe(0);
  });

  it("serves a new prefix to requests sent at once: the first admitted computes it, the others hit it", () => {
    // Four branches of one fan-out: a 512-token prefix nobody sent before, then a suffix of their own.
    const p = noiseless;
    const engine = new Engine(p, 1);
    const shared = prompt(512);
    const branch = (b: number) => [...shared, ...prompt(40, 5000 + b * 100)];
    const run = runVirtual(
      engine,
      [0, 1, 2, 3].map((b) => ({ at: 0, spec: spec(`b${b}`, branch(b), 4) })),
    );
    const cached = [0, 1, 2, 3].map((b) => run.outcomes.get(`b${b}`)!.cachedPromptTokens);
    expect(cached).toEqual([0, 512, 512, 512]);
    // One step prefills the prefix once and the four suffixes.
    expect(run.outcomes.get("b3")!.tokenTimes[0]).toBeCloseTo(
      p.step_overhead_ms + p.prefill_per_token_ms * (552 + 3 * 40),
      9,
    );
    expect(engine.stats.prefixHits).toBe(3 * 512);

    // A prefix whose prefill is chunked over steps (1025 tokens in chunks of 256): a request arriving during
    // the first chunk waits for a step with budget left, the one of "first"'s last token, by which every
    // chunk before was scheduled, and finds all 64 of the prefix's blocks cached.
    const chunked = new Engine(applyOverrides(noiseless, { max_num_batched_tokens: 256 }), 1);
    const long = prompt(1024, 3000);
    const later = runVirtual(chunked, [
      { at: 0, spec: spec("first", [...long, 1], 2) },
      { at: 0.001, spec: spec("second", [...long, 2], 2) },
    ]);
    expect(later.outcomes.get("first")!.cachedPromptTokens).toBe(0);
    expect(later.outcomes.get("second")!.cachedPromptTokens).toBe(1024);
  });

  it("evicts a cached prompt from its end when the cache runs short, so its leading blocks are reused", () => {
    // 64 blocks of 16: a 512-token prompt (32 blocks) is cached, then an unrelated one of 640 tokens (40
    // blocks, 41 with its output) needs 9 of them. As vLLM frees a request's blocks tail first, those 9
    // are the end of the first prompt: asked again, its first 23 blocks are still a hit.
    const engine = new Engine(applyOverrides(noiseless, { num_gpu_blocks: 64 }), 1);
    const first = prompt(512);
    const a = runVirtual(engine, [{ at: 0, spec: spec("a", first, 4) }]);
    const b = runVirtual(engine, [{ at: 0, spec: spec("b", prompt(640, 5000), 4) }], a.endTime);
    const again = runVirtual(engine, [{ at: 0, spec: spec("c", first, 4) }], b.endTime);
    expect(again.outcomes.get("c")!.cachedPromptTokens).toBe(23 * 16);
  });

  it("does not hit the prefix cache when prefix caching is off", () => {
    const engine = new Engine(applyOverrides(noiseless, { enable_prefix_caching: false }), 1);
    const run = runVirtual(engine, [
      { at: 0, spec: spec("a", prompt(256), 2) },
      { at: 100, spec: spec("b", prompt(256), 2) },
    ]);
    expect(run.outcomes.get("b")!.cachedPromptTokens).toBe(0);
    expect(engine.stats.prefixQueries).toBe(0);
  });

  it("preempts the newest request when the KV cache is short, and still finishes everything", () => {
    const engine = new Engine(builtInProfile("tiny-kv"), 1);
    const run = runVirtual(engine, burst(16, 100, 200));
    expect(engine.stats.preemptions).toBeGreaterThan(0);
    expect(Math.max(...run.samples.map((s) => s.kvUsage))).toBeGreaterThan(0.9);
    for (const outcome of run.outcomes.values()) {
      expect(outcome.finishReason).toBe("length");
      expect(outcome.tokenTimes).toHaveLength(200);
    }
    expect(engine.kvUsage).toBe(0);
    const roomy = new Engine(noiseless, 1);
    runVirtual(roomy, burst(16, 100, 200));
    expect(roomy.stats.preemptions).toBe(0);
  });

  it("throughput rises with load, then plateaus at max_num_seqs", () => {
    const p = applyOverrides(noiseless, { max_num_seqs: 32 });
    const throughput = (concurrency: number) => {
      const engine = new Engine(p, 1);
      const run = runVirtual(engine, burst(concurrency * 2, 64, 64));
      return (concurrency * 2 * 64) / run.endTime;
    };
    const [t1, t8, t32, t64, t128] = [1, 8, 32, 64, 128].map(throughput) as [
      number,
      number,
      number,
      number,
      number,
    ];
    expect(t8).toBeGreaterThan(t1 * 4);
    expect(t32).toBeGreaterThan(t8 * 1.5);
    expect(Math.abs(t64 - t32) / t32).toBeLessThan(0.1);
    expect(Math.abs(t128 - t64) / t64).toBeLessThan(0.1);
  });

  it("stops at a seeded EOS without ignore_eos, never before min_tokens, and counts the EOS", () => {
    const p = applyOverrides(noiseless, { eos_mean_tokens: 20 });
    const arrivals = Array.from({ length: 50 }, (_, i) => ({
      at: 0,
      spec: { id: `e${i}`, promptTokens: prompt(10), maxTokens: 200, minTokens: 5 },
    }));
    const lengths = (seed: number) => {
      const run = runVirtual(new Engine(p, seed), arrivals);
      return [...run.outcomes.values()].map((o) => o.tokenTimes.length);
    };
    const a = lengths(1);
    expect(lengths(1)).toEqual(a);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(6);
    expect(new Set(a).size).toBeGreaterThan(10);
    expect(mean(a)).toBeGreaterThan(15);
    expect(mean(a)).toBeLessThan(40);
    // The same request seed gives the same length on any server seed.
    const seeded = (serverSeed: number) =>
      runVirtual(new Engine(p, serverSeed), [
        { at: 0, spec: { id: "s", promptTokens: prompt(10), maxTokens: 500, seed: 42 } },
      ]).outcomes.get("s")!.tokenTimes.length;
    expect(seeded(1)).toBe(seeded(2));
    const engine = new Engine(p, 1);
    engine.addRequest({ id: "x", promptTokens: prompt(10), maxTokens: 500, seed: 42 }, 0);
    const tokens: number[] = [];
    for (let now = 0; engine.hasWork(); ) {
      const plan = engine.beginStep(now)!;
      now += plan.durationMs;
      for (const event of engine.endStep()) {
        tokens.push(event.token);
        if (event.finishReason) expect(event.finishReason).toBe("stop");
      }
    }
    expect(tokens.at(-1)).toBe(eosTokenId);
  });

  it("an fp8 KV cache trades later TTFT for more throughput", () => {
    const run = (profile: SimProfile) => {
      const engine = new Engine(applyOverrides(profile, { num_gpu_blocks: 1024 }), 1);
      const r = runVirtual(engine, burst(256, 256, 128));
      const ttfts = [...r.outcomes.values()].map((o) => o.tokenTimes[0]! - o.arrival);
      return { throughput: (256 * 128) / r.endTime, lone: 0, preemptions: engine.stats.preemptions, ttfts };
    };
    const base = run(noiseless);
    const fp8 = run(applyOverrides(noiseless, { cache_dtype: "fp8" }));
    expect(fp8.throughput).toBeGreaterThan(base.throughput);
    const lone = (profile: SimProfile) =>
      runVirtual(new Engine(profile, 1), [{ at: 0, spec: spec("a", prompt(1000), 2) }]).outcomes.get("a")!
        .tokenTimes[0]!;
    expect(lone(applyOverrides(noiseless, { cache_dtype: "fp8" }))).toBeGreaterThan(lone(noiseless));
  });

  it("a long prefill landing in the batch stretches the running sequences' ITL (chunked-prefill interference)", () => {
    const p = applyOverrides(noiseless, { max_num_batched_tokens: 512 });
    const engine = new Engine(p, 1);
    const run = runVirtual(engine, [
      { at: 0, spec: spec("decoder", prompt(10), 60) },
      { at: 30, spec: spec("long", prompt(2000, 5000), 2) },
    ]);
    const times = run.outcomes.get("decoder")!.tokenTimes;
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const quiet = p.step_overhead_ms + p.decode_per_seq_ms;
    expect(Math.min(...gaps)).toBeGreaterThan(quiet - 0.01);
    // A step carrying a 511-token prefill chunk next to the decode.
    expect(Math.max(...gaps)).toBeCloseTo(quiet + p.prefill_per_token_ms * 511, 1);
    expect(gaps.filter((gap) => gap > quiet + 1).length).toBeGreaterThanOrEqual(3);
  });

  it("a runtime profile change (+10% decode) applies from the next step", () => {
    const engine = new Engine(applyOverrides(noiseless, { attention_per_context_token_ms: 0 }), 1);
    engine.addRequest(spec("a", prompt(10), 10), 0);
    const durations: number[] = [];
    let now = 0;
    for (let step = 0; engine.hasWork(); step++) {
      if (step === 5)
        engine.setProfile({ ...engine.config, decode_per_seq_ms: noiseless.decode_per_seq_ms * 1.1 });
      const plan = engine.beginStep(now)!;
      durations.push(plan.durationMs);
      now += plan.durationMs;
      engine.endStep();
    }
    const before = noiseless.step_overhead_ms + noiseless.decode_per_seq_ms;
    const after = noiseless.step_overhead_ms + noiseless.decode_per_seq_ms * 1.1;
    expect(durations[4]).toBeCloseTo(before, 9);
    expect(durations[5]).toBeCloseTo(after, 9);
    expect(() => {
      engine.addRequest(spec("b", prompt(10), 10), now);
      engine.setProfile({ ...engine.config, block_size: 32 });
    }).toThrow(/block_size/);
  });

  it("a client abort frees the KV cache and, as in vLLM, is not a finished request", () => {
    const engine = new Engine(noiseless, 1);
    engine.addRequest(spec("a", prompt(100), 50), 0);
    engine.beginStep(0);
    engine.endStep();
    expect(engine.kvUsage).toBeGreaterThan(0);
    expect(engine.abort("a", 5)).toBe(true);
    expect(engine.kvUsage).toBe(0);
    expect(engine.hasWork()).toBe(false);
    // vllm/v1/metrics/loggers.py @ v0.11.0: request_success and the per-request histograms observe
    // finished requests only; TTFT, ITL and the token counters are per step.
    const s = engine.stats;
    expect(s.success).toEqual({ stop: 0, length: 0, abort: 0 });
    for (const h of [s.e2e, s.queue, s.prefill, s.decode, s.inference, s.tpot, s.maxTokensParam]) {
      expect(h.count).toBe(0);
    }
    expect(s.promptTokensPerRequest.count).toBe(0);
    expect(s.ttft.count).toBe(1);
    expect(s.generationTokens).toBe(1);
  });

  it("rejects a request that can never fit in the KV cache instead of blocking the queue", () => {
    const engine = new Engine(applyOverrides(noiseless, { num_gpu_blocks: 4, max_model_len: 4096 }), 1);
    const run = runVirtual(engine, [
      { at: 0, spec: spec("huge", prompt(200), 4) },
      { at: 0, spec: spec("small", prompt(10), 4) },
    ]);
    expect(run.outcomes.get("huge")!.finishReason).toBe("abort");
    expect(run.outcomes.get("small")!.finishReason).toBe("length");
  });
});
