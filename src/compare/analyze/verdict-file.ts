import type { GateConfig } from "../../config/schema.js";
import { flattenFingerprint } from "../inputs/fingerprint.js";
import { exitCodeFor } from "../verdict/exit-code.js";
import type { SpecDecodeCell } from "../verdict/spec-decode-schema.js";
import { headlineFor, impactOf, mixedResults, withFamilyHeadline } from "../verdict/summary.js";
import { type Comparison, type VerdictFile, verdictSchemaVersion } from "../verdict/verdict-schema.js";
import type { checkComparability } from "./cells.js";
import type { AdjustedChecks, SpeedChecks } from "./checks.js";
import type { AnalyzeInput } from "./input.js";
import type { Levels, SessionDrift } from "./levels.js";
import type { DecidedVerdict, LookAhead } from "./verdict.js";

/** Everything verdict.json is assembled from. */
interface VerdictParts {
  speed: SpeedChecks;
  family: AdjustedChecks;
  comparisons: Comparison[];
  comparability: ReturnType<typeof checkComparability>;
  decided: DecidedVerdict;
  ahead: LookAhead;
  specDecode: SpecDecodeCell[];
  warnings: string[];
}

/** Stage 7: verdict.json assembled from the stages' results. */
export function assembleVerdictFile(
  input: AnalyzeInput,
  levels: Levels,
  drift: SessionDrift,
  parts: VerdictParts,
): VerdictFile {
  const { gate } = input;
  const { speed, comparisons, decided, ahead, specDecode } = parts;
  const { counts, quality } = decided;
  const cells = speed.pairing.cells;
  const firstFingerprint = (side: "baseline" | "candidate") =>
    flattenFingerprint(speed.runs.sides[side][0]?.fingerprint ?? {});
  const summary = parts.family.family.summary;
  const settings = settingsOf(gate, levels, drift);
  settings.gatedFamily = {
    regression: summary.regression,
    improvement: summary.improvement,
    familyTests: summary.familyTests,
  };
  return {
    schemaVersion: verdictSchemaVersion,
    tool: input.tool,
    generatedAt: input.now,
    verdict: decided.verdict,
    exitCode: exitCodeFor(decided.verdict, gate.fail_on),
    headline: headlineOf(decided, comparisons, parts.comparability.notComparable.length),
    counts,
    mode: input.mode,
    baselineInfo: input.baselineInfo ?? null,
    settings,
    cells,
    comparisons,
    mixed: mixedResults(comparisons, levels.alpha),
    impact: impactOf(cells, comparisons),
    fingerprints: {
      baseline: firstFingerprint("baseline"),
      candidate: firstFingerprint("candidate"),
      differences: parts.comparability.differences,
    },
    runs: { used: speed.runs.used, excluded: speed.runs.excluded },
    nextLook: ahead.nextLook,
    settle: ahead.settle,
    ...(ahead.atTolerance.length > 0 ? { atTolerance: ahead.atTolerance } : {}),
    detection: ahead.detection,
    warnings: parts.warnings,
    families: decided.families,
    ...(quality.guards !== null || quality.greedy !== null || quality.tasks !== null
      ? {
          quality: {
            guards: quality.guards ?? [],
            ...(quality.greedy !== null ? { greedy: quality.greedy } : {}),
            ...(quality.tasks !== null ? { tasks: quality.tasks } : {}),
          },
        }
      : {}),
    ...(specDecode.length > 0 ? { specDecode } : {}),
  };
}

/** The headline: the speed checks', then the family tests', then the quality checks' say. */
function headlineOf(
  decided: DecidedVerdict,
  comparisons: readonly Comparison[],
  notComparable: number,
): string {
  const { speedVerdict, counts } = decided;
  return withGuardHeadline(
    withFamilyHeadline(
      headlineFor(speedVerdict, counts, comparisons, decided.brokenCells.length, notComparable),
      speedVerdict,
      decided.familyRegressions,
      counts,
    ),
    decided.verdict,
    decided.speedAndFamilies,
    decided.quality.regressions,
    counts.improvement,
  );
}

/**
 * The headline when quality guards regressed: it leads with them, and a speed improvement beside them is
 * named as coming with the regression, never as a plain improvement.
 */
function withGuardHeadline(
  speedHeadline: string,
  verdict: VerdictFile["verdict"],
  speedVerdict: VerdictFile["verdict"],
  guardRegressions: number,
  speedImprovements: number,
): string {
  if (guardRegressions === 0 || verdict !== "regression") return speedHeadline;
  const guards = `${guardRegressions} quality check${guardRegressions === 1 ? "" : "s"} got worse beyond tolerance`;
  if (speedVerdict === "regression")
    return `Regression: ${guards}; and ${speedHeadline.replace(/^Regression: /, "")}`;
  const speed =
    speedImprovements > 0
      ? `the speed ${speedImprovements === 1 ? "improvement comes" : `improvements (${speedImprovements}) come`} with changed outputs, not an improvement`
      : "the outputs changed";
  return `Regression: ${guards}: ${speed} (speed alone: ${speedHeadline})`;
}

/** The settings block of verdict.json: what the verdict was decided with. */
function settingsOf(gate: GateConfig, levels: Levels, drift: SessionDrift): VerdictFile["settings"] {
  return {
    tolerance: gate.tolerance,
    detectChange: gate.detect_change,
    metricTolerance: gate.metric_tolerance as Record<string, number>,
    confidence: gate.confidence,
    familyAlpha: levels.familyAlpha,
    lookAlpha: levels.alpha,
    passAlpha: levels.passAlpha,
    looks: levels.looks,
    failOn: gate.fail_on,
    errorRateLimit: gate.error_rate_limit,
    sessionDriftSd: drift.driftSd,
    sessionDriftEstimates: Object.fromEntries(
      [...drift.estimates].map(([metric, estimate]) => [
        metric,
        {
          sd: Math.sqrt(estimate.differenceVariance),
          sessions: estimate.sessions,
          source: estimate.source,
          historySd: estimate.historyT2 === null ? null : Math.sqrt(2 * estimate.historyT2),
          historyWeight: estimate.historyWeight,
          screenedSessions: estimate.screenedSessions,
          screenedRuns: estimate.screenedRuns,
        },
      ]),
    ),
    minRunSd: gate.min_run_sd,
    outlierThreshold: gate.outlier_threshold,
    gatedMetrics: [...gate.metrics],
    minRequests: { ...gate.min_requests },
    allowedDifferences: [...gate.allowed_differences],
    onNotComparable: gate.on_not_comparable,
  };
}
