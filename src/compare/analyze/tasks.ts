import type { RunOutput } from "../../metrics/guards.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { ExternalTaskFile } from "../../runner/external-task.js";
import { mcnemarWorseP, twoProportionWorseP, wilsonInterval } from "../../stats/accuracy.js";
import type { TaskCheck } from "../verdict/quality-schema.js";
import type { ComparedCell } from "./cells.js";
import { type AdjustedMember, adjustGatedFamily, type FamilyMember } from "./gated-family.js";

export interface TaskSettings {
  tasks: { tolerance_points: number };
  /** The level of the paired test (the look's α) and the Wilson intervals' confidence (gate.confidence). */
  alpha: number;
  confidence: number;
}

function scored(run: RunRecord): RunOutput[] {
  return (run.outputs ?? []).filter((output) => output.task !== undefined);
}

function firstScoredRun(runs: readonly RunRecord[]): RunRecord | undefined {
  return [...runs].sort((a, b) => (a.run ?? 0) - (b.run ?? 0)).find((run) => scored(run).length > 0);
}

/**
 * The task-accuracy drafts of every compared cell whose runs scored answers: the first scored run of each
 * side, paired prompt by prompt (same index = same task of the seeded set), with the exact McNemar test on
 * the discordant pairs of "the candidate is worse"; and the external task results (quality.tasks.external,
 * see externalDrafts). Each side's accuracy has its Wilson interval. Null without any. Pure.
 */
export function taskDrafts(
  compared: readonly ComparedCell[],
  settings: Omit<TaskSettings, "alpha">,
): TaskDraft[] | null {
  const drafts: TaskDraft[] = [];
  for (const cell of compared) {
    const base = firstScoredRun(cell.base);
    const cand = firstScoredRun(cell.cand);
    if (base === undefined || cand === undefined) continue;
    const candidate = new Map(scored(cand).map((output) => [output.index, output.task!.correct]));
    let prompts = 0;
    let baseCorrect = 0;
    let candCorrect = 0;
    let onlyBaseline = 0;
    let onlyCandidate = 0;
    for (const output of scored(base)) {
      const other = candidate.get(output.index);
      if (other === undefined) continue;
      prompts++;
      const right = output.task!.correct;
      if (right) baseCorrect++;
      if (other) candCorrect++;
      if (right && !other) onlyBaseline++;
      if (!right && other) onlyCandidate++;
    }
    const side = (correct: number) => ({
      correct,
      accuracy: prompts > 0 ? correct / prompts : 0,
      wilson: wilsonInterval(correct, prompts, settings.confidence),
    });
    drafts.push({
      cell: cell.cell,
      method: "mcnemar",
      runs: { baseline: base.run, candidate: cand.run },
      prompts,
      baseline: side(baseCorrect),
      candidate: side(candCorrect),
      onlyBaseline,
      onlyCandidate,
      tolerancePoints: settings.tasks.tolerance_points,
      pRaw: mcnemarWorseP(onlyBaseline, onlyCandidate),
      confidence: settings.confidence,
      note: prompts === 0 ? "no task was answered on both sides" : null,
    });
  }
  drafts.push(...compared.flatMap((cell) => externalDrafts(cell, settings)));
  return drafts.length === 0 ? null : drafts;
}

/**
 * The smallest p a task test can attain: McNemar conditions on the discordant pairs n, so 0.5^n (1
 * without one); the two-proportion z-test is continuous (1 when its pooled share is 0 or 1).
 */
function minimumP(draft: TaskDraft): number {
  if (draft.method === "mcnemar") {
    const n = draft.onlyBaseline + draft.onlyCandidate;
    return n === 0 ? 1 : 0.5 ** n;
  }
  return draft.pRaw >= 1 ? 1 : 0;
}

/** The gated family's members of the task drafts (regression direction: the candidate worse). */
export function taskMembers(drafts: readonly TaskDraft[]): FamilyMember[] {
  return drafts.map((draft) => ({
    source: "task",
    regression: { p: draft.pRaw, minP: minimumP(draft) },
    improvement: null,
  }));
}

/**
 * The task verdicts from the family's adjustment (one entry per draft): a regression when the adjusted p
 * is at most α and the accuracy fell by more than `tolerance_points`.
 */
export function decideTasks(
  drafts: readonly TaskDraft[],
  adjusted: readonly AdjustedMember[],
  alpha: number,
): TaskCheck[] {
  return drafts.map((draft, i) => {
    const member = adjusted[i]!;
    const p = member.regression ?? draft.pRaw;
    const drop = draft.baseline.accuracy - draft.candidate.accuracy;
    const regression = draft.prompts > 0 && p <= alpha && drop > draft.tolerancePoints;
    return {
      ...draft,
      p,
      inFamily: member.inFamily,
      verdict: regression ? "regression" : "within-tolerance",
    };
  });
}

/** The task checks alone, in a gated family of their own plus `others` (for tests and benchmarks). */
export function taskChecks(
  compared: readonly ComparedCell[],
  settings: TaskSettings,
  others: readonly FamilyMember[] = [],
): TaskCheck[] | null {
  const drafts = taskDrafts(compared, settings);
  if (drafts === null) return null;
  const family = adjustGatedFamily([...others, ...taskMembers(drafts)], settings.alpha);
  return decideTasks(drafts, family.members.slice(others.length), settings.alpha);
}

export type TaskDraft = Omit<TaskCheck, "p" | "verdict" | "inFamily">;

/** Each side's result of every external task of the cell: the first run that has it. */
function externalResults(
  runs: readonly RunRecord[],
): Map<string, { run: number | null; file: ExternalTaskFile }> {
  const found = new Map<string, { run: number | null; file: ExternalTaskFile }>();
  for (const run of [...runs].sort((a, b) => (a.run ?? 0) - (b.run ?? 0))) {
    for (const file of run.external ?? [])
      if (!found.has(file.name)) found.set(file.name, { run: run.run, file });
  }
  return found;
}

/**
 * The external tasks of a cell present on both sides. With per-sample results on both sides, paired by
 * sample id: the exact McNemar test, as for a tasks cell. Without them, each side's aggregate accuracy
 * of its own n samples: the one-sided two-proportion z-test (unpaired, so less sensitive), each side's
 * correct count taken as round(accuracy × n).
 */
function externalDrafts(cell: ComparedCell, settings: Omit<TaskSettings, "alpha">): TaskDraft[] {
  const base = externalResults(cell.base);
  const cand = externalResults(cell.cand);
  const drafts: TaskDraft[] = [];
  for (const [name, b] of [...base].sort(([x], [y]) => x.localeCompare(y))) {
    const c = cand.get(name);
    if (c === undefined) continue;
    const common = {
      cell: cell.cell,
      external: name,
      runs: { baseline: b.run, candidate: c.run },
      tolerancePoints: settings.tasks.tolerance_points,
      confidence: settings.confidence,
    };
    const side = (correct: number, n: number, paired: boolean) => ({
      correct,
      accuracy: n > 0 ? correct / n : 0,
      wilson: wilsonInterval(correct, n, settings.confidence),
      ...(paired ? {} : { n }),
    });
    if (b.file.samples !== null && c.file.samples !== null) {
      const other = new Map(c.file.samples.map((sample) => [sample.id, sample.correct]));
      let prompts = 0;
      let baseCorrect = 0;
      let candCorrect = 0;
      let onlyBaseline = 0;
      let onlyCandidate = 0;
      for (const sample of b.file.samples) {
        const right = other.get(sample.id);
        if (right === undefined) continue;
        prompts++;
        if (sample.correct) baseCorrect++;
        if (right) candCorrect++;
        if (sample.correct && !right) onlyBaseline++;
        if (!sample.correct && right) onlyCandidate++;
      }
      drafts.push({
        ...common,
        method: "mcnemar",
        prompts,
        baseline: side(baseCorrect, prompts, true),
        candidate: side(candCorrect, prompts, true),
        onlyBaseline,
        onlyCandidate,
        pRaw: mcnemarWorseP(onlyBaseline, onlyCandidate),
        note: prompts === 0 ? "no sample id is on both sides" : null,
      });
      continue;
    }
    const baseCorrect = Math.round(b.file.accuracy * b.file.count);
    const candCorrect = Math.round(c.file.accuracy * c.file.count);
    drafts.push({
      ...common,
      method: "two-proportion",
      prompts: Math.min(b.file.count, c.file.count),
      baseline: side(baseCorrect, b.file.count, false),
      candidate: side(candCorrect, c.file.count, false),
      onlyBaseline: 0,
      onlyCandidate: 0,
      pRaw: twoProportionWorseP(baseCorrect, b.file.count, candCorrect, c.file.count),
      note: "no per-sample results on both sides: unpaired two-proportion test",
    });
  }
  return drafts;
}
