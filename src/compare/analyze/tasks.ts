import type { RunOutput } from "../../metrics/guards.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { ExternalTaskFile } from "../../runner/external-task.js";
import { mcnemarWorseP, twoProportionWorseP, wilsonInterval } from "../../stats/accuracy.js";
import { holmAdjust } from "../../stats/multiplicity.js";
import type { TaskCheck } from "../quality-schema.js";
import type { ComparedCell } from "./cells.js";

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
 * The task-accuracy check of every compared cell whose runs scored answers: the first scored run of each
 * side, paired prompt by prompt (same index = same task of the seeded set). A regression when the exact
 * McNemar test on the discordant pairs says the candidate is worse (Holm over the task checks) and its
 * accuracy fell by more than `tolerance_points`. Each side's accuracy has its Wilson interval. The
 * external task results (quality.tasks.external) join the same family: see externalDrafts. Pure.
 */
export function taskChecks(compared: readonly ComparedCell[], settings: TaskSettings): TaskCheck[] | null {
  const drafts: Draft[] = [];
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
  if (drafts.length === 0) return null;
  const adjusted = holmAdjust(drafts.map((d) => d.pRaw));
  return drafts.map((draft, i) => {
    const p = adjusted[i]!;
    const drop = draft.baseline.accuracy - draft.candidate.accuracy;
    const regression = draft.prompts > 0 && p <= settings.alpha && drop > draft.tolerancePoints;
    return { ...draft, p, verdict: regression ? "regression" : "within-tolerance" };
  });
}

type Draft = Omit<TaskCheck, "p" | "verdict">;

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
function externalDrafts(cell: ComparedCell, settings: TaskSettings): Draft[] {
  const base = externalResults(cell.base);
  const cand = externalResults(cell.cand);
  const drafts: Draft[] = [];
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
