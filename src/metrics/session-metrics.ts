import type { RequestRecord } from "../runner/request-schema.js";
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
 * `session.index`. Completed: every planned turn answered. Good: completed, and every request of it met
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
  const sessions = new Map<number, RequestRecord[]>();
  for (const record of records) {
    if (record.session === undefined) continue;
    const list = sessions.get(record.session.index);
    if (list) list.push(record);
    else sessions.set(record.session.index, [record]);
  }
  if (sessions.size === 0) return null;
  const slo = options.slo;
  const hasSlo =
    slo !== undefined &&
    (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
  const durations: number[] = [];
  const hitRates: number[] = [];
  const ttftByDepth = new Map<DepthBucket, number[]>(depthBuckets.map((bucket) => [bucket.name, []]));
  let completed = 0;
  let good = 0;
  let firstTurns = 0;
  let contaminated = 0;
  let turnsSent = 0;
  for (const turns of sessions.values()) {
    const planned = turns[0]!.session!.turns;
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
      turnsSent++;
      if (position.toolRound === 0) userTurns.add(position.turn);
      start = Math.min(start, record.sentMs);
      end = Math.max(end, record.endMs);
      const latencies = requestLatencies(record);
      if (latencies === null) {
        allOk = false;
        allGood = false;
      } else {
        if (hasSlo && !isGood(latencies, slo)) allGood = false;
        const depth = position.turn + 1;
        const bucket = depthBuckets.find(
          (entry) => depth >= entry.from && (entry.to === null || depth <= entry.to),
        )!;
        ttftByDepth.get(bucket.name)!.push(latencies.ttft);
      }
      if (record.promptTokens !== null && record.cachedTokens !== null) {
        prompt += record.promptTokens;
        cached += record.cachedTokens;
        cacheReported = true;
        if (position.turn === 0 && position.toolRound === 0) {
          const bar = firstTurnBar(record, options.sharedPrefixTokens);
          if (bar !== undefined) {
            firstTurns++;
            if (bar !== null && record.cachedTokens > bar + contaminationSlackTokens) contaminated++;
          }
        }
      }
    }
    const done = allOk && userTurns.size === planned;
    if (done) {
      completed++;
      durations.push(end - start);
      if (hasSlo && allGood) good++;
    }
    if (cacheReported && prompt > 0) hitRates.push(cached / prompt);
  }
  const perSecond = (count: number) => (options.durationS > 0 ? count / options.durationS : 0);
  const contaminationFlag = firstTurns > 0 && contaminated / firstTurns > contaminationShare;
  return {
    started: sessions.size,
    completed,
    requests: turnsSent,
    throughput: perSecond(completed),
    goodput: hasSlo ? perSecond(good) : null,
    duration: summarize(durations),
    cacheHitRate:
      hitRates.length > 0 ? hitRates.reduce((sum, rate) => sum + rate, 0) / hitRates.length : null,
    serverCacheHitRate: options.serverHitRate,
    ttftByDepth: depthBuckets.map((bucket) => {
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
    }),
    // A trace's first turns share prefix blocks by design: no check was possible, which is not a pass.
    contamination: {
      firstTurns,
      aboveSharedPrefix: contaminated,
      flagged: contaminationFlag,
      checked: options.sharedPrefixTokens !== null,
    },
  };
}
