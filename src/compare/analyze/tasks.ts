import type { QualityConfig } from "../../config/schema.js";
import type { RunOutput } from "../../metrics/guards.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { mcnemarWorseP, wilsonInterval } from "../../stats/accuracy.js";
import { holmAdjust } from "../../stats/multiplicity.js";
import type { TaskCheck } from "../quality-schema.js";
import type { ComparedCell } from "./cells.js";

export interface TaskSettings {
  tasks: QualityConfig["tasks"];
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
 * accuracy fell by more than `tolerance_points`. Each side's accuracy has its Wilson interval. Pure.
 */
export function taskChecks(compared: readonly ComparedCell[], settings: TaskSettings): TaskCheck[] | null {
  const drafts: Omit<TaskCheck, "p" | "verdict">[] = [];
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
  if (drafts.length === 0) return null;
  const adjusted = holmAdjust(drafts.map((d) => d.pRaw));
  return drafts.map((draft, i) => {
    const p = adjusted[i]!;
    const drop = draft.baseline.accuracy - draft.candidate.accuracy;
    const regression = draft.prompts > 0 && p <= settings.alpha && drop > draft.tolerancePoints;
    return { ...draft, p, verdict: regression ? "regression" : "within-tolerance" };
  });
}
