import { mixSeed, type Random, seededRandom } from "../util/random.js";
import { KvCache } from "./kv-cache.js";
import { deviceSpeedFactor, type EffectiveCosts, effectiveCosts, type SimProfile } from "./profile.js";
import { EngineStats, type FinishReason } from "./stats.js";
import { vocabularySize } from "./tokenizer.js";

/**
 * The continuous-batching model, pure and deterministic: the caller owns time. `beginStep(now)` picks
 * the batch and says how long the step takes; `endStep()` applies it at now + duration and returns the
 * tokens produced. Same profile, seed and arrivals give the same timeline, on virtual or real time.
 */

/** The id the simulator samples as end-of-sequence; it has no text. */
export const eosTokenId = vocabularySize;

/** FNV-1a over the prompt's token ids: the greedy outputs' seed. */
export function hashTokens(tokens: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const token of tokens) {
    hash ^= token & 0xffff;
    hash = Math.imul(hash, 0x01000193);
    hash ^= token >>> 16;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The logprob of the token at `position` (natural log): a confident pick (-0.02 to about -1.5) from the
 * request's own seed, lower for a token of a changed or garbage output, minus `drift` nats.
 */
function tokenLogprob(seed: number, position: number, diverged: boolean, drift: number): number {
  const u = seededRandom(mixSeed(seed, position)).next();
  const base = diverged ? -(1 + 3 * u) : -(0.02 + 1.5 * u ** 4);
  return base - drift;
}

export interface EngineRequestSpec {
  id: string;
  promptTokens: readonly number[];
  maxTokens: number;
  minTokens?: number;
  ignoreEos?: boolean;
  /** The request's own `seed`; otherwise derived from the engine seed and the arrival order. */
  seed?: number;
  cacheSalt?: string;
  /** Sampling temperature (default 1.0); only speculative decoding's acceptance depends on it. */
  temperature?: number;
  /** A task's answer length in tokens (sim/tasks.ts): the output is that many tokens and EOS. */
  answerTokens?: number;
  /** Reasoning tokens before the answer (sim/answer-plan.ts): the planned answer comes after them. */
  reasoningTokens?: number;
}

export interface SequenceTimes {
  arrival: number;
  firstScheduled?: number;
  firstToken?: number;
  lastToken?: number;
  finished?: number;
}

interface Sequence {
  spec: EngineRequestSpec;
  promptLen: number;
  /** Output tokens to produce, the EOS (if any) included; decided at arrival from the request's seed. */
  outputLength: number;
  plannedReason: "stop" | "length";
  outputs: number[];
  rng: Random;
  /** Quality faults (docs/quality.md): tokens from here on come from `altRng` (null: never). */
  divergeAt: number | null;
  altRng: Random;
  /** Seed of the per-position logprobs (a function of the same inputs as the tokens). */
  logprobSeed: number;
  /** Draws of speculative-decoding acceptance, apart from `rng` so that outputs do not depend on them. */
  specRng: Random | undefined;
  numComputed: number;
  blockHashes: string[] | undefined;
  sharedBlocks: string[];
  privateBlocks: number;
  times: SequenceTimes;
  preemptions: number;
  state: "waiting" | "running" | "finished";
}

export interface StepEvent {
  id: string;
  /** The token sampled this step. */
  token: number;
  /** Its logprob as the model gave it (natural log, <= 0). */
  logprob: number;
  /** The token comes from a changed or garbage output (quality faults), not the model's own. */
  diverged: boolean;
  eos: boolean;
  first: boolean;
  /** Output tokens so far, this one included. */
  outputTokens: number;
  promptTokens: number;
  cachedPromptTokens: number;
  finishReason?: FinishReason;
}

interface ScheduledWork {
  seq: Sequence;
  /** Tokens computed this step: a prefill chunk, or 1 + drafts for a decode. */
  tokens: number;
  decode: boolean;
  /** Draft tokens verified with this decode (speculative decoding). */
  drafts: number;
}

export interface StepPlan {
  durationMs: number;
  prefillTokens: number;
  decodeSequences: number;
}

export class Engine {
  readonly stats: EngineStats;
  private profile: SimProfile;
  private costs: EffectiveCosts;
  private readonly kv: KvCache;
  private readonly noise: Random;
  private readonly speedNormal: number;
  /** The start's own draws for its prefill factor (a normal) and whether it is a slow start (a uniform). */
  private readonly startDraws: { prefillNormal: number; slowUniform: number };
  private readonly waiting: Sequence[] = [];
  private readonly running: Sequence[] = [];
  private readonly byId = new Map<string, Sequence>();
  private readonly cachedPromptTokens = new Map<string, number>();
  private arrivals = 0;
  private readonly rejected: string[] = [];
  private current: { start: number; end: number; work: ScheduledWork[] } | undefined;

  /** The simulated GPU's own speed (device_speed_factors at this engine's device index). */
  private deviceFactor: number;

  constructor(
    profile: SimProfile,
    private readonly seed = 0,
    /** The simulated GPU this engine runs on (sim --device K): selects its device_speed_factors entry. */
    readonly device = 0,
  ) {
    this.profile = { ...profile };
    this.deviceFactor = deviceSpeedFactor(profile, device);
    this.costs = effectiveCosts(profile);
    this.kv = new KvCache(this.costs.numGpuBlocks);
    this.noise = seededRandom(mixSeed(seed, 0x5eed));
    // One draw per engine (= per server start); sigma scales it later, so changing sigma keeps the draw.
    this.speedNormal = this.noise.normal();
    // The start's prefill and slow-start draws come from a stream of their own, so the step jitter
    // (this.noise) of a seed is the same whether they are used or not.
    const startNoise = seededRandom(mixSeed(seed, 0x57a7));
    this.startDraws = { prefillNormal: startNoise.normal(), slowUniform: startNoise.next() };
    this.stats = new EngineStats(profile.max_model_len);
  }

  get config(): SimProfile {
    return this.profile;
  }

  /** The per-server-start multiplier of every step time (times the device's own speed; a slow start's). */
  get speedFactor(): number {
    const p = this.profile;
    return (
      p.speed_factor * this.deviceFactor * Math.exp(p.speed_sigma * this.speedNormal) * this.slowStartFactor
    );
  }

  /** slow_start_factor when this start drew a slow one (slow_start_share), else 1. */
  private get slowStartFactor(): number {
    return this.startDraws.slowUniform < this.profile.slow_start_share ? this.profile.slow_start_factor : 1;
  }

  /** The per-server-start multiplier of the prefill cost terms (prefill_speed_sigma), on top of speedFactor. */
  get prefillFactor(): number {
    return Math.exp(this.profile.prefill_speed_sigma * this.startDraws.prefillNormal);
  }

  /** Takes effect from the next step. block_size may only change while idle (blocks are sized by it). */
  setProfile(profile: SimProfile): void {
    if (profile.block_size !== this.profile.block_size) {
      if (this.hasWork()) throw new Error("block_size can only change while no request is in flight");
      this.resetPrefixCache();
    }
    this.profile = { ...profile };
    this.costs = effectiveCosts(profile);
    this.kv.resize(this.costs.numGpuBlocks);
    this.deviceFactor = deviceSpeedFactor(profile, this.device);
  }

  get numRunning(): number {
    return this.running.length;
  }
  get numWaiting(): number {
    return this.waiting.length;
  }
  get kvUsage(): number {
    return this.kv.usage;
  }
  get kvCapacityBlocks(): number {
    return this.kv.total;
  }
  hasWork(): boolean {
    return this.running.length > 0 || this.waiting.length > 0;
  }
  get stepInProgress(): boolean {
    return this.current !== undefined;
  }

  /** Whether a request with this id is still tracked (in flight, or finished and not yet forgotten). */
  knows(id: string): boolean {
    return this.byId.has(id);
  }

  timesOf(id: string): SequenceTimes | undefined {
    return this.byId.get(id)?.times;
  }

  addRequest(spec: EngineRequestSpec, now: number): void {
    if (this.byId.has(spec.id)) throw new Error(`duplicate request id ${spec.id}`);
    const ordinal = this.arrivals++;
    // Greedy decoding is a function of the prompt and the weights: at temperature 0 the tokens and the
    // EOS come from (prompt, model_revision), not from the seed or the arrival order.
    const greedySeed =
      spec.temperature === 0 ? mixSeed(hashTokens(spec.promptTokens), this.profile.model_revision) : null;
    const outputSeed =
      greedySeed ?? (spec.seed !== undefined ? mixSeed(spec.seed, 0x7e57) : mixSeed(this.seed, ordinal + 1));
    const rng = seededRandom(outputSeed);
    const planned = this.answerOutput(spec) ?? this.plannedOutput(spec, rng);
    const faults = this.qualityFaults(spec, outputSeed, planned);
    const { outputLength, reason } = faults;
    const specSeed =
      spec.seed !== undefined ? mixSeed(spec.seed, 0x5bec) : mixSeed(this.seed, -(ordinal + 1));
    const seq: Sequence = {
      spec,
      promptLen: spec.promptTokens.length,
      outputLength,
      plannedReason: reason,
      outputs: [],
      rng,
      divergeAt: faults.divergeAt,
      altRng: seededRandom(mixSeed(outputSeed, 0xa17e)),
      logprobSeed: mixSeed(outputSeed, 0x10b9),
      specRng: this.profile.spec_decode_num_tokens > 0 ? seededRandom(specSeed) : undefined,
      numComputed: 0,
      blockHashes: undefined,
      sharedBlocks: [],
      privateBlocks: 0,
      times: { arrival: now },
      preemptions: 0,
      state: "waiting",
    };
    this.byId.set(spec.id, seq);
    this.waiting.push(seq);
  }

  /**
   * Client gone or stream faulted: free its KV. As in vLLM, a client abort is not a finished request: no
   * request_success_total, no per-request histogram (its TTFT and ITLs, observed per step, stay).
   */
  abort(id: string, now: number): boolean {
    const seq = this.byId.get(id);
    if (!seq || seq.state === "finished") return false;
    this.removeFrom(this.waiting, seq);
    this.removeFrom(this.running, seq);
    if (this.current) this.current.work = this.current.work.filter((work) => work.seq !== seq);
    this.finish(seq, "abort", now, false);
    return true;
  }

  /** Forget a finished request's record (the server calls this once the response is written). */
  forget(id: string): void {
    const seq = this.byId.get(id);
    if (seq?.state === "finished") this.byId.delete(id);
  }

  resetPrefixCache(): boolean {
    return this.kv.resetEvictable();
  }

  /** Schedules the next step at `now`; undefined when there is nothing to run. */
  beginStep(now: number): StepPlan | undefined {
    if (this.current) throw new Error("beginStep while a step is in progress");
    const work = this.schedule(now);
    if (work.length === 0) return undefined;
    let prefillTokens = 0;
    let decodeSequences = 0;
    let contextTokens = 0;
    // Sum over prefill tokens of the context each attends to (tokens before it): attention makes a
    // prompt's prefill cost grow with its length squared.
    let prefillContext = 0;
    let draftTokens = 0;
    for (const { seq, tokens, decode, drafts } of work) {
      if (decode) {
        decodeSequences++;
        contextTokens += seq.numComputed + 1;
        draftTokens += drafts;
      } else {
        prefillTokens += tokens;
        prefillContext += tokens * seq.numComputed + (tokens * (tokens - 1)) / 2;
      }
    }
    const p = this.profile;
    const c = this.costs;
    // Roofline: the memory-bound part (the weights read once per step, the KV of each decoding
    // sequence) or the decoded tokens' compute, whichever is longer; 0 compute = memory-bound only.
    const memoryBound =
      p.step_overhead_ms + c.decodePerSeqMs * decodeSequences + c.attentionPerContextTokenMs * contextTokens;
    const computeBound = c.decodeComputePerTokenMs * (decodeSequences + draftTokens);
    const prefill =
      (c.prefillPerTokenMs * prefillTokens + p.prefill_attention_per_token_pair_ms * prefillContext) *
      this.prefillFactor;
    const base =
      Math.max(memoryBound, computeBound) +
      prefill +
      c.prefillPerTokenMs * draftTokens +
      p.spec_decode_draft_per_token_ms * draftTokens;
    const jitter = p.jitter_sigma > 0 ? Math.exp(p.jitter_sigma * this.noise.normal()) : 1;
    const durationMs = base * this.speedFactor * jitter;
    this.current = { start: now, end: now + durationMs, work };
    return { durationMs, prefillTokens, decodeSequences };
  }

  /** Applies the step begun last; returns one event per sequence that sampled a token. */
  endStep(): StepEvent[] {
    const step = this.current;
    if (!step) throw new Error("endStep without beginStep");
    this.current = undefined;
    const now = step.end;
    const events: StepEvent[] = [];
    // vllm:iteration_tokens_total observes, per step with output, the prompt length of each request that
    // got its first token plus the tokens generated (IterationStats in vllm/v1/metrics/stats.py).
    let iterationTokens = 0;
    for (const { seq, tokens, decode, drafts } of step.work) {
      if (seq.state !== "running") continue;
      let produce = 1;
      if (decode) {
        const accepted = drafts > 0 ? this.acceptDrafts(seq, drafts) : 0;
        seq.numComputed += 1 + accepted;
        produce = 1 + accepted;
      } else {
        seq.numComputed += tokens;
        if (seq.numComputed < seq.promptLen + seq.outputs.length) continue;
      }
      if (seq.outputs.length === 0) iterationTokens += seq.promptLen;
      iterationTokens += produce;
      this.observeStepOutput(seq, now);
      for (let i = 0; i < produce && seq.state === "running"; i++) events.push(this.sample(seq, now));
    }
    if (iterationTokens > 0) this.stats.iterationTokens.observe(iterationTokens);
    return events;
  }

  /** Drafts accepted in a chain: position j counts only if every draft before it was accepted. */
  private acceptDrafts(seq: Sequence, drafts: number): number {
    const p = this.profile;
    const t = Math.min(2, Math.max(0, seq.spec.temperature ?? 1));
    const rate = Math.min(
      1,
      Math.max(
        0,
        p.spec_decode_acceptance_t0 + (p.spec_decode_acceptance_t1 - p.spec_decode_acceptance_t0) * t,
      ),
    );
    const s = this.stats.specDecode;
    s.drafts++;
    s.draftTokens += drafts;
    let accepted = 0;
    const rng = seq.specRng ?? seededRandom(mixSeed(this.seed, 0x5bec));
    seq.specRng = rng;
    while (accepted < drafts && rng.next() < rate) {
      s.acceptedPerPosition[accepted] = (s.acceptedPerPosition[accepted] ?? 0) + 1;
      accepted++;
    }
    s.acceptedTokens += accepted;
    return accepted;
  }

  /** TTFT at the first output, else one inter-token latency per step with output (not per token). */
  private observeStepOutput(seq: Sequence, now: number): void {
    const times = seq.times;
    if (seq.outputs.length === 0) {
      times.firstToken = now;
      this.stats.ttft.observe((now - times.arrival) / 1000);
      this.stats.promptTokens += seq.promptLen;
    } else if (times.lastToken !== undefined) {
      this.stats.itl.observe((now - times.lastToken) / 1000);
    }
    times.lastToken = now;
  }

  private sample(seq: Sequence, now: number): StepEvent {
    const isLast = seq.outputs.length + 1 >= seq.outputLength;
    const eos = isLast && seq.plannedReason === "stop";
    const position = seq.outputs.length;
    const diverged = seq.divergeAt !== null && position >= seq.divergeAt;
    const token = eos ? eosTokenId : Math.floor((diverged ? seq.altRng : seq.rng).next() * vocabularySize);
    seq.outputs.push(token);
    const first = seq.outputs.length === 1;
    this.stats.generationTokens++;
    const event: StepEvent = {
      id: seq.spec.id,
      token,
      logprob: tokenLogprob(seq.logprobSeed, position, diverged, this.profile.logprob_drift),
      diverged,
      eos,
      first,
      outputTokens: seq.outputs.length,
      promptTokens: seq.promptLen,
      cachedPromptTokens: this.cachedPromptTokens.get(seq.spec.id) ?? 0,
    };
    if (isLast) {
      this.removeFrom(this.running, seq);
      this.finish(seq, seq.plannedReason, now);
      event.finishReason = seq.plannedReason;
    }
    return event;
  }

  private plannedOutput(
    spec: EngineRequestSpec,
    rng: Random,
  ): { outputLength: number; reason: "stop" | "length" } {
    const maxTokens = Math.max(
      1,
      Math.min(spec.maxTokens, this.profile.max_model_len - spec.promptTokens.length),
    );
    const mean = this.profile.eos_mean_tokens;
    if (spec.ignoreEos || mean <= 0) return { outputLength: maxTokens, reason: "length" };
    // The EOS ends the answer, so it comes after the reasoning (and never before min_tokens).
    const minTokens = (spec.minTokens ?? 0) + (spec.reasoningTokens ?? 0);
    const p = Math.min(1, 1 / mean);
    // Geometric position of the EOS among the outputs, never before min_tokens real tokens.
    const u = 1 - rng.next();
    const draw = p >= 1 ? 1 : 1 + Math.floor(Math.log(u) / Math.log(1 - p));
    const eosAt = minTokens + draw;
    return eosAt <= maxTokens
      ? { outputLength: eosAt, reason: "stop" }
      : { outputLength: maxTokens, reason: "length" };
  }

  /** A task's answer: its tokens and EOS (unless ignore_eos), within max_tokens. */
  private answerOutput(spec: EngineRequestSpec): { outputLength: number; reason: "stop" | "length" } | null {
    if (spec.answerTokens === undefined) return null;
    const maxTokens = Math.max(
      1,
      Math.min(spec.maxTokens, this.profile.max_model_len - spec.promptTokens.length),
    );
    if (spec.ignoreEos) return { outputLength: maxTokens, reason: "length" };
    const length = spec.answerTokens + 1;
    return length <= maxTokens
      ? { outputLength: length, reason: "stop" }
      : { outputLength: maxTokens, reason: "length" };
  }

  /**
   * The output-quality faults of a request (knobs quality_*, docs/quality.md), drawn from their own stream
   * so that the outputs of the unchanged requests stay as they were: truncation (an early EOS), garbage
   * (other tokens and, unless it keeps the length, no EOS until max_tokens) and a changed output (other
   * tokens from a seeded position on, same length).
   */
  private qualityFaults(
    spec: EngineRequestSpec,
    outputSeed: number,
    planned: { outputLength: number; reason: "stop" | "length" },
  ): { outputLength: number; reason: "stop" | "length"; divergeAt: number | null } {
    const p = this.profile;
    const draws = seededRandom(mixSeed(outputSeed, 0x9a11));
    const truncate = draws.next() < p.quality_truncate_share;
    const garbage = draws.next() < p.quality_garbage_share;
    const changed = draws.next() < p.quality_changed_share;
    const at = draws.next();
    let { outputLength, reason } = planned;
    let divergeAt: number | null = null;
    if (garbage) {
      divergeAt = 0;
      if (!p.quality_garbage_keeps_length) {
        outputLength = Math.max(1, Math.min(spec.maxTokens, p.max_model_len - spec.promptTokens.length));
        reason = "length";
      }
    } else if (changed) divergeAt = Math.floor(at * Math.max(1, outputLength - 1));
    if (truncate && outputLength > 1) {
      outputLength = Math.max(1, Math.ceil(outputLength / 4));
      reason = "stop";
    }
    return { outputLength, reason, divergeAt };
  }

  private schedule(now: number): ScheduledWork[] {
    const p = this.profile;
    let budget = p.max_num_batched_tokens;
    const work: ScheduledWork[] = [];
    let preempted = false;
    // Running sequences first, oldest first, as vLLM V1's scheduler does.
    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const seq = this.running[i]!;
      const remaining = seq.promptLen + seq.outputs.length - seq.numComputed;
      const decode = seq.outputs.length > 0 && remaining === 1;
      // Speculative decoding: a decode verifies up to k drafts, never more than the output still to come.
      const drafts = decode
        ? Math.max(
            0,
            Math.min(p.spec_decode_num_tokens, seq.outputLength - seq.outputs.length - 1, budget - 1),
          )
        : 0;
      const tokens = decode ? 1 + drafts : Math.min(remaining, budget);
      if (tokens <= 0) continue;
      let fits = this.allocate(seq, seq.numComputed + tokens);
      while (!fits) {
        const victim = this.running[this.running.length - 1]!;
        this.preempt(victim);
        preempted = true;
        if (victim === seq) break;
        fits = this.allocate(seq, seq.numComputed + tokens);
      }
      if (!fits) break;
      if (!decode) this.registerFullPromptBlocks(seq, seq.numComputed + tokens);
      work.push({ seq, tokens, decode, drafts });
      budget -= tokens;
    }
    if (!preempted) {
      while (this.waiting.length > 0 && this.running.length < p.max_num_seqs && budget > 0) {
        const seq = this.waiting[0]!;
        // A step placed on the timeline before a request arrived cannot serve it (the real-time loop
        // runs steps it was late for at their own times).
        if (seq.times.arrival > now) break;
        const admitted = this.admit(seq, budget, now);
        if (!admitted) {
          if (this.running.length > 0 || work.length > 0) break;
          this.rejectUnfittable(seq, now);
          continue;
        }
        this.waiting.shift();
        this.running.push(seq);
        work.push(admitted);
        budget -= admitted.tokens;
      }
    }
    return work;
  }

  /** A request that cannot fit even in an empty cache would block the queue forever. */
  private rejectUnfittable(seq: Sequence, now: number): void {
    this.waiting.shift();
    // The engine gave up on it: vLLM counts an engine-side abort as a finished request.
    this.finish(seq, "abort", now, true);
    this.rejected.push(seq.spec.id);
  }

  /** Ids of requests the engine gave up on (they could never fit in the KV cache); cleared on read. */
  takeRejected(): string[] {
    return this.rejected.splice(0, this.rejected.length);
  }

  private admit(seq: Sequence, budget: number, now: number): ScheduledWork | undefined {
    const p = this.profile;
    const numTokens = seq.promptLen + seq.outputs.length;
    let hitBlocks: string[] = [];
    if (p.enable_prefix_caching) {
      seq.blockHashes ??= this.kv.hashPromptBlocks(
        seq.spec.promptTokens,
        p.block_size,
        seq.spec.cacheSalt ?? "",
      );
      // At least one token is always computed, so the last token's logits exist.
      const maxHit = Math.floor((numTokens - 1) / p.block_size);
      hitBlocks = this.kv.lookup(seq.blockHashes, maxHit);
    }
    const hitTokens = hitBlocks.length * p.block_size;
    const tokens = Math.min(numTokens - hitTokens, budget);
    if (!this.kv.acquire(hitBlocks)) return undefined;
    seq.sharedBlocks = hitBlocks;
    seq.numComputed = hitTokens;
    if (!this.allocate(seq, hitTokens + tokens)) {
      this.kv.release(hitBlocks);
      seq.sharedBlocks = [];
      seq.numComputed = 0;
      return undefined;
    }
    // vLLM 0.11+ keeps the re-lookups of preempted requests out of the exported counters
    // (PrefixCacheStats.preempted_* in vllm/v1/core/kv_cache_manager.py), so the hit rate stays the
    // share of prompt tokens served from the cache.
    if (p.enable_prefix_caching && seq.preemptions === 0) {
      this.stats.prefixQueries += numTokens;
      this.stats.prefixHits += hitTokens;
    }
    if (seq.outputs.length === 0) this.cachedPromptTokens.set(seq.spec.id, hitTokens);
    this.registerFullPromptBlocks(seq, hitTokens + tokens);
    seq.state = "running";
    seq.times.firstScheduled ??= now;
    return { seq, tokens, decode: false, drafts: 0 };
  }

  private allocate(seq: Sequence, tokens: number): boolean {
    const needed = Math.ceil(tokens / this.profile.block_size) - seq.sharedBlocks.length - seq.privateBlocks;
    if (needed <= 0) return true;
    if (!this.kv.allocatePrivate(needed)) return false;
    seq.privateBlocks += needed;
    return true;
  }

  /**
   * Registers the prompt blocks that are full once the step computes up to `computedBy` tokens, when the
   * step is scheduled, as vLLM caches them when it allocates the step's slots (`cache_blocks` up to
   * num_computed_tokens + num_new_tokens in vllm/v1/core/kv_cache_manager.py `allocate_slots`): a request
   * admitted later in the same step, or while this one's prefill is still chunked over steps, finds them
   * cached. So requests sent at once over one new prefix (a session's fan-out branches) compute it once.
   */
  private registerFullPromptBlocks(seq: Sequence, computedBy: number): void {
    if (!this.profile.enable_prefix_caching || !seq.blockHashes) return;
    const full = Math.min(
      Math.floor(Math.min(computedBy, seq.promptLen) / this.profile.block_size),
      seq.blockHashes.length,
    );
    while (seq.sharedBlocks.length < full && seq.privateBlocks > 0) {
      const hash = seq.blockHashes[seq.sharedBlocks.length]!;
      this.kv.promote(hash);
      seq.privateBlocks--;
      seq.sharedBlocks.push(hash);
    }
  }

  private releaseBlocks(seq: Sequence): void {
    this.kv.release(seq.sharedBlocks);
    this.kv.freePrivate(seq.privateBlocks);
    seq.sharedBlocks = [];
    seq.privateBlocks = 0;
  }

  /** Recompute preemption: the newest running sequence loses its KV and goes back to the queue's head. */
  private preempt(seq: Sequence): void {
    this.removeFrom(this.running, seq);
    this.releaseBlocks(seq);
    seq.numComputed = 0;
    seq.state = "waiting";
    seq.preemptions++;
    this.waiting.unshift(seq);
    this.stats.preemptions++;
  }

  /**
   * `counted`: a finished request in vLLM's sense (stop, length, an engine-side abort), observed in
   * request_success_total and the per-request histograms (FinishedRequestStats in vllm/v1/metrics/stats.py).
   */
  private finish(seq: Sequence, reason: FinishReason, now: number, counted = true): void {
    this.releaseBlocks(seq);
    seq.state = "finished";
    this.cachedPromptTokens.delete(seq.spec.id);
    const t = seq.times;
    t.finished = now;
    if (!counted) return;
    const s = this.stats;
    s.success[reason]++;
    s.e2e.observe((now - t.arrival) / 1000);
    s.queue.observe(((t.firstScheduled ?? now) - t.arrival) / 1000);
    if (t.firstScheduled !== undefined) {
      s.inference.observe(((t.lastToken ?? now) - t.firstScheduled) / 1000);
      const prefillS = ((t.firstToken ?? now) - t.firstScheduled) / 1000;
      s.prefill.observe(prefillS);
      if (seq.promptLen > 0) s.prefillPerToken.observe(prefillS / seq.promptLen);
    }
    const decodeS =
      t.firstToken !== undefined && t.lastToken !== undefined ? (t.lastToken - t.firstToken) / 1000 : 0;
    if (t.firstToken !== undefined) s.decode.observe(decodeS);
    // vLLM records 0 for a request with at most one output token (mean_time_per_output_token).
    s.tpot.observe(seq.outputs.length > 1 ? decodeS / (seq.outputs.length - 1) : 0);
    s.promptTokensPerRequest.observe(seq.promptLen);
    s.generationTokensPerRequest.observe(seq.outputs.length);
    // Observed at finish, as vLLM does, and only for requests that finished.
    s.maxTokensParam.observe(seq.spec.maxTokens);
    s.maxGenerationTokens.observe(seq.outputs.length);
    s.nParam.observe(1);
  }

  private removeFrom(list: Sequence[], seq: Sequence): void {
    const index = list.indexOf(seq);
    if (index >= 0) list.splice(index, 1);
  }
}
