import type { RunRecord } from "../../metrics/run-record.js";
import type { VerdictFile } from "../verdict/verdict-schema.js";
import { checkComparability } from "./cells.js";
import { adjustFamily, draftQualityChecks, draftSpeedChecks } from "./checks.js";
import { decide } from "./decide.js";
import type { AdjustedMember } from "./gated-family.js";
import type { AnalyzeInput } from "./input.js";
import { levelsOf, sessionDriftOf } from "./levels.js";
import { explainSpecDecode } from "./spec-decode.js";
import { decideVerdict, lookAhead } from "./verdict.js";
import { assembleVerdictFile } from "./verdict-file.js";

/**
 * The comparison of two sides, in stages: the usable runs (outliers screened), the cells paired, a draft
 * per metric and cell, multiplicity and classification, the comparability check, the overall verdict with
 * the next look and what settling would cost, then verdict.json assembled. Pure: same input, same file.
 */
export function analyze(input: AnalyzeInput): VerdictFile {
  return analyzeWithFamily(input).verdict;
}

/** `analyze`, and the gated family's adjustment of `input.familyExtras` (in their order). */
export function analyzeWithFamily(input: AnalyzeInput): { verdict: VerdictFile; extras: AdjustedMember[] } {
  const levels = levelsOf(input);
  const drift = sessionDriftOf(input);
  const warnings = startWarnings(input.baseline, input.candidate);
  const speed = draftSpeedChecks(input, levels, drift, warnings);
  const quality = draftQualityChecks(input, warnings);
  const family = adjustFamily(input, speed.drafts, quality, levels.alpha);
  const comparisons = decide(
    speed.drafts,
    levels.alpha,
    levels.passAlpha,
    family.gatedCount,
    family.speedAdjusted,
  );
  const comparability = checkComparability(speed.pairing.fingerprintPairs, input.gate, warnings);
  const decided = decideVerdict(
    input,
    levels,
    { speed, quality, family, comparisons, comparability },
    warnings,
  );
  const ahead = lookAhead(input, levels, speed, family.gatedCount, comparisons, decided.verdict, warnings);
  const specDecode = explainSpecDecode(speed.pairing.compared, {
    gatedMetrics: input.gate.metrics,
    passAlpha: levels.passAlpha,
    minRunSd: input.gate.min_run_sd,
    driftVarianceFor: drift.varianceFor,
    ...(speed.startPriorFor ? { startPriorFor: speed.startPriorFor } : {}),
  });
  const verdict = assembleVerdictFile(input, levels, drift, {
    speed,
    family,
    comparisons,
    comparability,
    decided,
    ahead,
    specDecode,
    warnings,
  });
  return { verdict, extras: family.extrasAdjusted };
}

/**
 * Runs whose files did not say which server start measured them: they were taken as one start per side
 * and input (compare/inputs/load.ts), the conservative reading, and the report says so.
 */
function startWarnings(baseline: readonly RunRecord[], candidate: readonly RunRecord[]): string[] {
  const warnings: string[] = [];
  for (const [side, runs] of [
    ["baseline", baseline],
    ["candidate", candidate],
  ] as const) {
    const assumed = runs.filter((run) => run.serverStart?.basis === "assumed-shared").length;
    if (assumed > 0)
      warnings.push(
        `${assumed} ${side} run${assumed === 1 ? "" : "s"} did not record the server start that measured ${assumed === 1 ? "it" : "them"} (older files, or vllm bench serve without --metadata server_start=<id>): the runs of each input were taken as one start, so the start-to-start noise is the prior's (declare each run a fresh start with --fresh-starts if it was)`,
      );
  }
  return warnings;
}
