import type { DesignedSharing } from "../config/dataset-kinds.js";
import type { RequestRecord } from "../runner/request-schema.js";
import type { CacheCheck, SessionsSummary } from "./run-schema.js";

/**
 * The cache-state check of a run (docs/workloads.md, "Cache state"): a `prefix: fresh` run must find in
 * the prefix cache only what its own requests share by design (`DesignedSharing`, declared per dataset
 * kind). A run that found more measured a cache an earlier run left, which happens against a server that
 * ignores `cache_salt` and refuses the reset (a long-lived deployment, a proxy dropping the field), and
 * its latencies are not the cold-cache latencies the cell asks for: it is unusable, as a client-bound run
 * is. Pure.
 */

/**
 * Tokens per request a run may find cached besides its designed sharing: a chat template's common head
 * (a default system header is one or two KV blocks of 16 tokens).
 */
const templateSlackTokens = 32;
/** Hit rate above the designed bound (slack included) tolerated before a run is flagged: counting noise. */
const hitRateMargin = 0.05;

export interface CacheCheckInput {
  /** The run's measured requests. */
  records: readonly RequestRecord[];
  policy: "fresh" | "reuse";
  sharing: DesignedSharing;
  /** The server's prefix-cache hits / queries over the measured phase (its counters), null without them. */
  serverHitRate: number | null;
  /** The prefix cache was reset before the run (POST /reset_prefix_cache answered 200). */
  cacheReset: boolean;
  /** A session run's first-turn check (metrics/session-metrics.ts), null for single requests. */
  firstTurns: SessionsSummary["contamination"] | null;
}

export function checkCacheState(input: CacheCheckInput): CacheCheck {
  const notChecked = (reason: string, observed: Observed | null = null): CacheCheck => ({
    status: "not-checked",
    hitRate: observed?.rate ?? null,
    hitRateSource: observed?.source ?? null,
    designedHitRate: null,
    reason,
  });
  const observed = observedHitRate(input);
  if (input.policy === "reuse") return notChecked("prefix: reuse measures a warm cache on purpose", observed);
  if (input.sharing.kind === "unknown") return notChecked(input.sharing.why, observed);
  const counted = input.records.filter((record) => record.promptTokens !== null && record.promptTokens > 0);
  const promptTokens = counted.reduce((sum, record) => sum + record.promptTokens!, 0);
  if (promptTokens === 0) return notChecked("no measured request reported its prompt tokens", observed);
  const designed = designedSharedTokens(counted, input.sharing) + templateSlackTokens * counted.length;
  const designedHitRate = Math.min(1, designed / promptTokens);
  const firstTurns = input.firstTurns;
  const firstTurnsFlagged = firstTurns?.checked !== false && firstTurns?.flagged === true;
  if (observed === null && !firstTurnsFlagged)
    return notChecked(
      "the server reported no prefix-cache hits (no vllm:prefix_cache_* counters, no usage cached_tokens)",
    );
  const reasons: string[] = [];
  const warmWhy = input.cacheReset
    ? "an earlier run's cache survived the reset"
    : "the server kept an earlier run's cache (it ignores cache_salt, and the reset was refused)";
  if (observed !== null && observed.rate > designedHitRate + hitRateMargin)
    reasons.push(
      `prefix-cache hit rate ${percent(observed.rate)} (${observed.source === "server" ? "the server's counters" : "usage cached_tokens"}) against at most ${percent(designedHitRate)} its dataset shares by design (${describeSharing(input.sharing)}, ${templateSlackTokens} tokens of template per request): ${warmWhy}`,
    );
  if (firstTurnsFlagged)
    reasons.push(
      `${firstTurns!.aboveSharedPrefix} of ${firstTurns!.firstTurns} sessions' first turns were served from the prefix cache beyond the common system prompt: ${warmWhy}`,
    );
  if (reasons.length === 0)
    return {
      status: "passed",
      hitRate: observed?.rate ?? null,
      hitRateSource: observed?.source ?? null,
      designedHitRate,
      reason: `hits within what the dataset shares by design (${describeSharing(input.sharing)})`,
    };
  return {
    status: "flagged",
    hitRate: observed?.rate ?? null,
    hitRateSource: observed?.source ?? null,
    designedHitRate,
    reason: `warm cache in a prefix: fresh run: ${reasons.join("; ")}; its latencies are not a cold cache's (reset the server's prefix cache between runs, e.g. VLLM_SERVER_DEV_MODE=1 for POST /reset_prefix_cache, or measure a warm cache on purpose with prefix: reuse)`,
  };
}

interface Observed {
  rate: number;
  source: "server" | "usage";
}

/** The server's counters, else the usage's cached_tokens over the prompt tokens of the measured requests. */
function observedHitRate(input: CacheCheckInput): Observed | null {
  if (input.serverHitRate !== null) return { rate: input.serverHitRate, source: "server" };
  let prompt = 0;
  let cached = 0;
  for (const record of input.records) {
    if (record.promptTokens === null || record.cachedTokens === null) continue;
    prompt += record.promptTokens;
    cached += record.cachedTokens;
  }
  return prompt > 0 ? { rate: cached / prompt, source: "usage" } : null;
}

function describeSharing(sharing: Exclude<DesignedSharing, { kind: "unknown" }>): string {
  switch (sharing.kind) {
    case "none":
      return "nothing";
    case "groups":
      return `a group's ${sharing.tokens}-token prefix after its first request`;
    case "repeats":
      return `each prompt again after ${sharing.every} requests`;
    case "conversation":
      return sharing.firstTurnTokens > 0
        ? `each session's conversation so far, and ${sharing.firstTurnTokens} tokens of common system prompt`
        : "each session's conversation so far";
  }
}

/**
 * The prompt tokens the requests share by design: what each could find cached from the requests before
 * it in the same run, and never more than its own prompt.
 */
export function designedSharedTokens(records: readonly RequestRecord[], sharing: DesignedSharing): number {
  const own = (record: RequestRecord, tokens: number) => Math.min(record.promptTokens ?? 0, tokens);
  switch (sharing.kind) {
    case "none":
    case "unknown":
      return 0;
    case "groups": {
      const seen = new Set<number>();
      let shared = 0;
      for (const record of [...records].sort((a, b) => a.sentMs - b.sentMs)) {
        if (record.prefixGroup === null) continue;
        if (seen.has(record.prefixGroup)) shared += own(record, sharing.tokens);
        else seen.add(record.prefixGroup);
      }
      return shared;
    }
    case "repeats":
      return records
        .filter((record) => record.index >= sharing.every)
        .reduce((sum, record) => sum + (record.promptTokens ?? 0), 0);
    case "conversation": {
      const sessions = new Map<number, RequestRecord[]>();
      for (const record of records) {
        if (record.session === undefined) continue;
        const list = sessions.get(record.session.index) ?? [];
        list.push(record);
        sessions.set(record.session.index, list);
      }
      let shared = 0;
      for (const list of sessions.values()) {
        list.sort((a, b) => a.session!.turn - b.session!.turn || a.session!.toolRound - b.session!.toolRound);
        list.forEach((record, i) => {
          const previous = list[i - 1];
          shared += own(
            record,
            previous === undefined
              ? sharing.firstTurnTokens
              : (previous.promptTokens ?? 0) + (previous.outputTokens ?? 0),
          );
        });
      }
      return shared;
    }
  }
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}
