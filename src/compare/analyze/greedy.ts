import type { QualityConfig } from "../../config/schema.js";
import type { RunOutput } from "../../metrics/guards.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { startOf } from "../inputs/server-starts.js";
import type { GreedyCheck, OutputAgreement } from "../verdict/quality-schema.js";
import type { ComparedCell } from "./cells.js";

export type GreedySettings = NonNullable<QualityConfig["greedy"]>;

/** Tokens per output the similarity looks at: the edit distance costs their product (documented limit). */
const similarityTokenLimit = 2048;
/** Characters of each side shown around the first difference of an example. */
const exampleChars = 160;

/** The tokens of an output: the server's (logprobs returned), else whitespace-led words. */
export function outputTokens(output: Pick<RunOutput, "text" | "tokens">): string[] {
  return output.tokens ?? output.text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Levenshtein distance of two token lists (two rows, O(n·m) time). */
export function editDistance(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/** 1 - edit distance / longer length over the first similarityTokenLimit tokens (1 for two empty outputs). */
export function tokenSimilarity(a: readonly string[], b: readonly string[]): number {
  const x = a.slice(0, similarityTokenLimit);
  const y = b.slice(0, similarityTokenLimit);
  const longer = Math.max(x.length, y.length);
  return longer === 0 ? 1 : 1 - editDistance(x, y) / longer;
}

function firstDifference(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

interface Example {
  index: number;
  similarity: number;
  firstDifference: number;
  baseline: string;
  candidate: string;
}

/**
 * How far two runs' kept outputs agree, prompt by prompt (same index = same prompt of the seeded
 * workload; only prompts answered on both sides count): the share changed, the share changed within
 * the first `firstTokens` tokens, the mean token similarity, and the mean |logprob change| over the
 * positions before the first differing token (where both chose alike). Pure.
 */
export function compareOutputs(
  baseline: readonly RunOutput[],
  candidate: readonly RunOutput[],
  firstTokens: number,
): { agreement: OutputAgreement; examples: Example[]; serverTokens: boolean } {
  const byIndex = new Map(candidate.filter((o) => o.ok).map((o) => [o.index, o]));
  let prompts = 0;
  let changed = 0;
  let prefixChanged = 0;
  let similaritySum = 0;
  let driftSum = 0;
  let driftTokens = 0;
  let serverTokens = true;
  const examples: Example[] = [];
  for (const b of baseline) {
    const c = byIndex.get(b.index);
    if (!b.ok || c === undefined) continue;
    prompts++;
    if (b.tokens === null || c.tokens === null) serverTokens = false;
    const bt = outputTokens(b);
    const ct = outputTokens(c);
    const differs = b.text !== c.text;
    const at = firstDifference(bt, ct);
    if (differs) changed++;
    if (at < Math.min(firstTokens, Math.max(bt.length, ct.length))) prefixChanged++;
    const similarity = differs ? tokenSimilarity(bt, ct) : 1;
    similaritySum += similarity;
    if (b.logprobs !== null && c.logprobs !== null && b.tokens !== null && c.tokens !== null) {
      const alike = Math.min(at, b.logprobs.length, c.logprobs.length);
      for (let i = 0; i < alike; i++) {
        const x = b.logprobs[i];
        const y = c.logprobs[i];
        if (x === null || x === undefined || y === null || y === undefined) continue;
        driftSum += Math.abs(y - x);
        driftTokens++;
      }
    }
    if (differs) {
      const char = bt.slice(0, at).join("").length;
      const from = Math.max(0, char - 40);
      examples.push({
        index: b.index,
        similarity,
        firstDifference: at,
        baseline: b.text.slice(from, from + exampleChars),
        candidate: c.text.slice(from, from + exampleChars),
      });
    }
  }
  examples.sort((x, y) => x.similarity - y.similarity || x.index - y.index);
  return {
    agreement: {
      prompts,
      changedShare: prompts > 0 ? changed / prompts : 0,
      prefixChangedShare: prompts > 0 ? prefixChanged / prompts : 0,
      similarity: prompts > 0 ? similaritySum / prompts : null,
      logprobDrift: driftTokens > 0 ? driftSum / driftTokens : null,
      logprobTokens: driftTokens,
    },
    examples,
    serverTokens,
  };
}

function runsWithOutputs(runs: readonly RunRecord[]): RunRecord[] {
  return runs
    .filter((run) => run.outputs !== undefined && run.outputs.length > 0)
    .sort((a, b) => (a.run ?? 0) - (b.run ?? 0));
}

/**
 * The baseline run the floor compares the first with: the first run measured on another server start
 * (the candidate's run is always on another start than the baseline's, and a start's kernel and
 * autotuning picks can change greedy tokens on their own), else the second run.
 */
function floorPartner(base: readonly RunRecord[]): RunRecord | undefined {
  const first = base[0];
  if (first === undefined) return undefined;
  return base.slice(1).find((run) => startOf(run) !== startOf(first)) ?? base[1];
}

/**
 * The greedy-output check of each compared cell named in quality.greedy.cells whose runs kept outputs:
 * the candidate's first run against the baseline's first, beside the baseline's first run against its
 * first run on another server start, else its second (the floor, which real GPUs have without batch
 * invariance, and between starts without deterministic kernel choices). A regression when
 * the changed shares exceed the floor by more than their tolerance, the similarity falls below its
 * minimum, or the logprobs drift beyond the floor by more than theirs. Null without the setting.
 */
export function greedyChecks(
  compared: readonly ComparedCell[],
  settings: GreedySettings | undefined,
  warnings: string[],
): GreedyCheck[] | null {
  if (settings === undefined) return null;
  const checks: GreedyCheck[] = [];
  for (const cell of compared) {
    if (!settings.cells.includes(cell.cell)) continue;
    const base = runsWithOutputs(cell.base);
    const cand = runsWithOutputs(cell.cand);
    if (base.length === 0 || cand.length === 0) {
      warnings.push(
        `cell "${cell.cell}" is a greedy-output cell but its ${base.length === 0 ? "baseline" : "candidate"} runs kept no outputs (measured before quality.greedy named it): the greedy check was skipped`,
      );
      continue;
    }
    const main = compareOutputs(base[0]!.outputs!, cand[0]!.outputs!, settings.first_tokens);
    const floorRun = floorPartner(base);
    const noise =
      floorRun === undefined
        ? null
        : compareOutputs(base[0]!.outputs!, floorRun.outputs!, settings.first_tokens);
    const floor = noise?.agreement;
    const a = main.agreement;
    const reasons: string[] = [];
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const changedFloor = floor?.changedShare ?? 0;
    const acrossStarts = floorRun !== undefined && startOf(floorRun) !== startOf(base[0]!);
    if (a.changedShare - changedFloor > settings.max_changed_share)
      reasons.push(
        `${pct(a.changedShare)} of ${a.prompts} outputs changed (baseline ${acrossStarts ? "start to start" : "run to run"}: ${pct(changedFloor)}; quality.greedy.max_changed_share ${pct(settings.max_changed_share)})`,
      );
    const prefixFloor = floor?.prefixChangedShare ?? 0;
    if (a.prefixChangedShare - prefixFloor > settings.max_prefix_changed_share)
      reasons.push(
        `${pct(a.prefixChangedShare)} changed within the first ${settings.first_tokens} tokens (baseline: ${pct(prefixFloor)}; max_prefix_changed_share ${pct(settings.max_prefix_changed_share)})`,
      );
    if (a.similarity !== null && a.similarity < settings.min_similarity)
      reasons.push(
        `mean token similarity ${a.similarity.toFixed(3)} is below quality.greedy.min_similarity ${settings.min_similarity}`,
      );
    const driftFloor = floor?.logprobDrift ?? 0;
    if (a.logprobDrift !== null && a.logprobDrift - driftFloor > settings.max_logprob_drift)
      reasons.push(
        `chosen tokens' logprobs moved ${a.logprobDrift.toFixed(3)} nats on average (baseline: ${driftFloor.toFixed(3)}; max_logprob_drift ${settings.max_logprob_drift})`,
      );
    if (a.prompts === 0) reasons.push("no prompt was answered on both sides");
    checks.push({
      cell: cell.cell,
      runs: { baseline: base[0]!.run, candidate: cand[0]!.run },
      candidate: a,
      baselineNoise: floor ?? null,
      ...(floorRun !== undefined
        ? { baselineNoiseRuns: { first: base[0]!.run, second: floorRun.run, acrossStarts } }
        : {}),
      tokenSource: main.serverTokens ? "server" : "words",
      verdict: reasons.length > 0 ? "regression" : "within-tolerance",
      reasons,
      examples: main.examples.slice(0, settings.examples),
    });
  }
  return checks;
}
