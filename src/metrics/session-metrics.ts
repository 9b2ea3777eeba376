import type { RequestRecord } from "../runner/request-schema.js";
import { fanOutTimes, summarizeFanOuts } from "./fan-out-metrics.js";
import { isGood, requestLatencies, type Slo } from "./run-metrics.js";
import type { SessionsSummary } from "./run-schema.js";
import { summarize } from "./summary.js";

/**
 * The context-depth buckets TTFT is summarised in (1-based turn numbers: how many user turns the
 * conversation holds, the new one included): 1, 2-3, 4-7, 8 and deeper. Doubling widths keep each
 * bucket's requests comparable in number for sessions of a few to tens of turns.
 */
export const depthBuckets = [
  { name: "1", from: 1, to: 1 },
  { name: "2_3", from: 2, to: 3 },
  { name: "4_7", from: 4, to: 7 },
  { name: "8_up", from: 8, to: null },
] as const;

export type DepthBucket = (typeof depthBuckets)[number]["name"];

/**
 * A first turn whose cached prompt tokens reach more than this many tokens into its own new text (past the
 * common system prompt and the template) was served from a cache an earlier run left: warm-up sessions and
 * measured sessions never share more, so it is contamination (a fixed seed against a long-lived server).
 */
const contaminationSlackTokens = 16;
/** The share of first turns with such hits at which a run is flagged as contaminated. */
const contaminationShare = 0.1;

/**
 * The cached tokens a first turn may have by design: the common prefix, and all of its prompt but its own
 * new text (`targetInputTokens` less the common prefix, where the record has it): a chat template's head
 * and declared tools are the same for every first turn, and only an earlier run can have cached the
 * turn's own text. Undefined for a turn whose own text is too short to tell (two slacks or less), null when
 * no check is possible (a trace: `sharedPrefixTokens` null).
 */
function firstTurnBar(record: RequestRecord, sharedPrefixTokens: number | null): number | null | undefined {
  if (sharedPrefixTokens === null) return null;
  if (record.targetInputTokens === null || record.promptTokens === null) return sharedPrefixTokens;
  const own = record.targetInputTokens - sharedPrefixTokens;
  if (own <= 2 * contaminationSlackTokens) return undefined;
  return Math.max(sharedPrefixTokens, record.promptTokens - own);
}

/**
 * Per-run session metrics of a session dataset's records (pure): a session is its records with the same
 * `session.index`. Completed: every planned turn answered (a fan-out turn: every branch). Good: completed, and every request of it met
 * every SLO (vLLM's rule per request). Duration: first send to last answer's end, think times included (the
 * script gives both sides the same ones). Cache hit rate: per session, cached / prompt tokens of its
 * requests from the usage's cached_tokens, averaged over the sessions that report them; the server's own
 * counters (prefix cache hits / queries over the run) beside it.
 */
export function computeSessionMetrics(
  records: readonly RequestRecord[],
  options: {
    durationS: number;
    slo?: Slo | undefined;
    /**
     * Tokens every session's first turn may share with others (the common system prompt), or 0; null
     * when first turns share prefixes by design (a trace): no contamination check then.
     */
    sharedPrefixTokens: number | null;
    serverHitRate: number | null;
  },
): SessionsSummary | null {
  const sessions = groupSessions(records);
  if (sessions.size === 0) return null;
  // Sessions with a fan-out turn whose branches were not all sent and answered.
  const fanOuts = fanOutTimes(records);
  const fanOutIncomplete = new Set(fanOuts.flatMap((time) => (time.completed ? [] : [time.session])));
  const slo = options.slo;
  const hasSlo =
    slo !== undefined &&
    (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
  const ttftByDepth = new Map<DepthBucket, number[]>(depthBuckets.map((bucket) => [bucket.name, []]));
  const tallies = [...sessions].map(([index, turns]) => {
    const tally = tallySession(turns, hasSlo ? slo : undefined, options.sharedPrefixTokens, ttftByDepth);
    return { ...tally, completed: tally.completed && !fanOutIncomplete.has(index) };
  });
  const done = tallies.filter((tally) => tally.completed);
  const good = done.filter((tally) => hasSlo && tally.good).length;
  const hitRates = tallies.flatMap((tally) => (tally.hitRate === null ? [] : [tally.hitRate]));
  const firstTurns = tallies.filter((tally) => tally.firstTurn !== "unseen").length;
  const contaminated = tallies.filter((tally) => tally.firstTurn === "contaminated").length;
  const perSecond = (count: number) => (options.durationS > 0 ? count / options.durationS : 0);
  const fanOut = summarizeFanOuts(fanOuts);
  return {
    started: sessions.size,
    completed: done.length,
    requests: records.filter((record) => record.session !== undefined).length,
    throughput: perSecond(done.length),
    goodput: hasSlo ? perSecond(good) : null,
    duration: summarize(done.map((tally) => tally.durationMs)),
    cacheHitRate:
      hitRates.length > 0 ? hitRates.reduce((sum, rate) => sum + rate, 0) / hitRates.length : null,
    serverCacheHitRate: options.serverHitRate,
    ttftByDepth: depthSummaries(ttftByDepth),
    // A trace's first turns share prefix blocks by design: no check was possible, which is not a pass.
    contamination: {
      firstTurns,
      aboveSharedPrefix: contaminated,
      flagged: firstTurns > 0 && contaminated / firstTurns > contaminationShare,
      checked: options.sharedPrefixTokens !== null,
    },
    ...(fanOut !== undefined ? { fanOut } : {}),
  };
}

/** A run's session records by session index, in the order sessions first appear. */
function groupSessions(records: readonly RequestRecord[]): Map<number, RequestRecord[]> {
  const sessions = new Map<number, RequestRecord[]>();
  for (const record of records) {
    if (record.session === undefined) continue;
    const list = sessions.get(record.session.index);
    if (list) list.push(record);
    else sessions.set(record.session.index, [record]);
  }
  return sessions;
}

/** What one session's records say (its fan-outs aside); its answered requests' TTFT go to `ttftByDepth`. */
interface SessionTally {
  /** Every planned turn answered. */
  completed: boolean;
  /** Every request met every SLO (only read with SLOs). */
  good: boolean;
  /** First send to last answer's end. */
  durationMs: number;
  /** Cached / prompt tokens of its requests, where usage reported them; null where none did. */
  hitRate: number | null;
  /** Its first turn's cache check: not possible, within the shared prefix, or beyond it. */
  firstTurn: "unseen" | "clean" | "contaminated";
}

function tallySession(
  turns: readonly RequestRecord[],
  slo: Slo | undefined,
  sharedPrefixTokens: number | null,
  ttftByDepth: Map<DepthBucket, number[]>,
): SessionTally {
  const planned = turns[0]!.session!.turns;
  // A first turn's cached prefix: at a fan-out, the least any branch found (the first admitted computes
  // the branches' common prefix, the others hit it).
  let firstTurnSeen = false;
  let firstTurnExcess: number | null = null;
  const userTurns = new Set<number>();
  let allOk = true;
  let allGood = true;
  let prompt = 0;
  let cached = 0;
  let cacheReported = false;
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const record of turns) {
    const position = record.session!;
    if (position.toolRound === 0) userTurns.add(position.turn);
    start = Math.min(start, record.sentMs);
    end = Math.max(end, record.endMs);
    const latencies = requestLatencies(record);
    if (latencies === null) {
      allOk = false;
      allGood = false;
    } else {
      if (slo !== undefined && !isGood(latencies, slo)) allGood = false;
      ttftByDepth.get(depthBucketOf(position.turn + 1))!.push(latencies.ttft);
    }
    if (record.promptTokens !== null && record.cachedTokens !== null) {
      prompt += record.promptTokens;
      cached += record.cachedTokens;
      cacheReported = true;
      // A fan-out's first turn is several branches over one prefix: the branch that found the least
      // cached speaks for the session (the others may hit what their siblings just computed).
      if (position.turn === 0 && position.toolRound === 0) {
        const bar = firstTurnBar(record, sharedPrefixTokens);
        if (bar !== undefined) {
          firstTurnSeen = true;
          if (bar !== null)
            firstTurnExcess = Math.min(
              firstTurnExcess ?? Number.POSITIVE_INFINITY,
              record.cachedTokens - bar,
            );
        }
      }
    }
  }
  return {
    completed: allOk && userTurns.size === planned,
    good: allGood,
    durationMs: end - start,
    hitRate: cacheReported && prompt > 0 ? cached / prompt : null,
    firstTurn: !firstTurnSeen
      ? "unseen"
      : firstTurnExcess !== null && firstTurnExcess > contaminationSlackTokens
        ? "contaminated"
        : "clean",
  };
}

function depthBucketOf(depth: number): DepthBucket {
  return depthBuckets.find((entry) => depth >= entry.from && (entry.to === null || depth <= entry.to))!.name;
}

function depthSummaries(ttftByDepth: Map<DepthBucket, number[]>): SessionsSummary["ttftByDepth"] {
  return depthBuckets.map((bucket) => {
    const values = ttftByDepth.get(bucket.name)!;
    const summary = summarize(values);
    return {
      bucket: bucket.name,
      from: bucket.from,
      to: bucket.to,
      requests: values.length,
      p50: summary.p50,
      p95: summary.p95,
    };
  });
}
