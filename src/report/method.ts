import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import { detectionLine } from "./checks.js";
import { escapeInline } from "./escape.js";
import { formatFractionAsPercent, formatNumber, nonZeroCounts } from "./format.js";
import { fold } from "./markdown-blocks.js";

/**
 * How the verdict was decided: the mode (interleaved, or a stored baseline and its drift), which
 * baseline, what the runs cost in GPU time, and the method in one paragraph.
 */

/** What drift the stored comparison added, and where it came from (the prior or the baseline history). */
function driftNote(verdict: VerdictFile): string {
  const prior = formatNumber(verdict.settings.sessionDriftSd);
  const gated = new Set(verdict.settings.gatedMetrics);
  const all = Object.entries(verdict.settings.sessionDriftEstimates);
  const estimates =
    all.filter(([metric]) => gated.has(metric)).length > 0
      ? all.filter(([metric]) => gated.has(metric))
      : all;
  const fromHistory = estimates.filter(([, e]) => e.source === "history");
  if (fromHistory.length === 0)
    return `a between-session drift (sd ${prior} on the log scale, the prior \`gate.session_drift_sd\`: fewer than 2 baseline sessions to estimate it from) that more runs cannot remove is added to every interval.`;
  const sds = fromHistory.map(([, e]) => e.sd);
  const low = formatNumber(Math.min(...sds));
  const high = formatNumber(Math.max(...sds));
  const sessions = Math.min(...fromHistory.map(([, e]) => e.sessions));
  const weight = Math.min(...fromHistory.map(([, e]) => e.historyWeight));
  const screened = [...new Set(fromHistory.flatMap(([, e]) => e.screenedSessions))];
  const runs = Math.max(...fromHistory.map(([, e]) => e.screenedRuns));
  const screenedText = [
    screened.length > 0
      ? `${screened.length} outlier session${screened.length === 1 ? "" : "s"} screened (${screened.map((name) => escapeInline(name.split(/[\\/]/).filter(Boolean).at(-1) ?? name, 60)).join(", ")})`
      : "",
    runs > 0 ? `${runs} outlier run${runs === 1 ? "" : "s"} screened` : "",
  ].filter((text) => text.length > 0);
  return `a between-session drift that more runs cannot remove is added to every interval: sd ${low === high ? low : `${low}–${high}`} on the log scale, estimated from ${sessions} baseline sessions and shrunk towards the prior ${prior} (history weight ${Number(weight.toFixed(2))})${screenedText.length > 0 ? `; ${screenedText.join(", ")}` : ""}.`;
}

export function modeSection(verdict: VerdictFile, withMethod = true): string {
  const mode =
    verdict.mode === "interleaved"
      ? "**Mode: interleaved**: baseline and candidate ran in the same job on the same runner, so no session-drift term is added."
      : `**Mode: stored baseline**: the baseline came from another job, so ${driftNote(verdict)}`;
  const info = verdict.baselineInfo;
  const parts: string[] = [];
  if (info?.commit) parts.push(`commit ${escapeInline(info.commit, 64)}`);
  if (info?.ref) parts.push(`ref ${escapeInline(info.ref, 80)}`);
  if (info?.runId) parts.push(`run ${escapeInline(info.runId, 64)}`);
  if (info?.date) parts.push(`date ${escapeInline(info.date, 64)}`);
  if (info?.url) parts.push(`link ${escapeInline(info.url, 200)}`);
  if (info?.note) parts.push(escapeInline(info.note, 200));
  const baseline = parts.length > 0 ? `Baseline: ${parts.join(" · ")}.` : "Baseline: no provenance given.";
  const s = verdict.settings;
  const method = `Per cell and metric, one number per run (the run is the unit of replication); Welch's t on the logs; tolerance ±${formatFractionAsPercent(s.tolerance)} unless set per metric; ${gatedFamilyPhrase(s.gatedFamily)}, advisory metrics Benjamini-Hochberg; family confidence ${formatFractionAsPercent(s.confidence)}; regression means significantly worse than the tolerance (one-sided test against the margin at α = ${Number(s.lookAlpha.toPrecision(3))} per look before Holm; looks at ${s.looks.join("/")} runs per side), so a true change inside the tolerance is blocked at most ${formatFractionAsPercent(s.familyAlpha)} of the time; improvement is the mirror; within tolerance means the ${formatFractionAsPercent(1 - s.passAlpha)} upper bound is inside the tolerance; runs whose gated metrics sit more than ${s.outlierThreshold} robust sd from their side's median are screened out (sides of 5+ runs) and replaced; run-to-run sd is floored at ${s.minRunSd}.`;
  return [
    "### Comparison",
    "",
    mode,
    "",
    baseline,
    ...startsLine(verdict),
    ...priorsLine(verdict),
    ...gpuMinutesLine(verdict),
    ...(withMethod ? ["", method] : []),
  ].join("\n");
}

/**
 * One line on the server-start level of the noise (docs/compare.md, "Server starts"): the starts each
 * side's runs were measured on and the start-to-start sd the intervals carry, with where it came from.
 */
function startsLine(verdict: VerdictFile): string[] {
  // The per-run checks' start sd is on ln(metric); a pooled count's (designEffect) is on its share.
  const tested = verdict.comparisons.filter((c) => c.gated && c.noise && c.noise.designEffect === undefined);
  if (tested.length === 0) return [];
  const noise = tested.map((c) => c.noise!);
  const range = (values: number[]) => {
    const low = Math.min(...values);
    const high = Math.max(...values);
    return low === high ? String(low) : `${low}–${high}`;
  };
  const starts = `Server starts: baseline ${range(noise.map((n) => n.starts.baseline))}, candidate ${range(noise.map((n) => n.starts.candidate))}`;
  if (noise.every((n) => n.startBasis === "fresh"))
    return ["", `${starts}: every run on its own start, so the runs' spread holds the start-to-start noise.`];
  const shared = noise.filter((n) => n.startBasis !== "fresh");
  const sds = shared.map((n) => n.startSd * 100);
  const sd = `${formatNumber(Math.min(...sds))}${Math.max(...sds) > Math.min(...sds) + 1e-9 ? `–${formatNumber(Math.max(...sds))}` : ""}%`;
  const bases = [...new Set(shared.map((n) => n.startBasis))];
  const sources = [...new Set(shared.map((n) => n.priorSource).filter((s): s is string => s !== null))];
  const basisText = bases
    .map((basis) =>
      basis === "prior"
        ? "the prior (too few starts to measure it)"
        : basis === "measured"
          ? "measured from the starts"
          : basis === "measured+prior"
            ? "measured from the starts, pooled with the prior"
            : "none (no prior, one start a side)",
    )
    .join("; ");
  const share = Math.max(...shared.map((n) => n.startShare));
  const contradicted = shared.filter((n) => n.priorContradicted).length;
  return [
    "",
    `${starts}. Runs on one start share what it drew (allocator and KV layout, CUDA graphs, autotuning), so the intervals carry a start-to-start sd of ${sd} on the log scale: ${basisText}${sources.length > 0 ? ` (${sources.map((s) => `\`${escapeInline(s, 80)}\``).join(", ")})` : ""}; up to ${formatFractionAsPercent(share)} of a check's variance.${contradicted > 0 ? ` In ${contradicted} check${contradicted === 1 ? "" : "s"} the starts varied significantly more than the prior said, so the prior was widened to what they show (their own estimate, with their degrees of freedom: the runner is noisier than believed, calibrate it).` : ""}`,
  ];
}

type PriorUse = NonNullable<
  NonNullable<NonNullable<VerdictFile["comparisons"][number]["noise"]>["priors"]>["run"]
>;

/** "calibration `cal.json` of 2026-11-30, 7 days old": a prior named with its date and age. */
function priorPhrase(prior: PriorUse): string {
  const when =
    prior.date === null
      ? ""
      : prior.since && prior.since !== prior.date
        ? ` of ${prior.since} to ${prior.date}`
        : ` of ${prior.date}`;
  const age =
    prior.ageDays === null
      ? ""
      : `, ${prior.ageDays} day${prior.ageDays === 1 ? "" : "s"} old${prior.stale ? " (stale: older than gate.noise_prior.max_age_days)" : ""}`;
  return `${escapeInline(prior.source, 120)}${when}${age}`;
}

/** Per level, the measured priors the gated checks used, grouped by what they came from. */
function levelPriors(uses: readonly PriorUse[], level: string): string | null {
  const groups = new Map<string, PriorUse[]>();
  for (const use of uses) {
    const key = `${use.basis}\u0000${use.source}\u0000${use.date}`;
    groups.set(key, [...(groups.get(key) ?? []), use]);
  }
  if (groups.size === 0) return null;
  const parts = [...groups.values()].map((group) => {
    const dfs = group.map((use) => use.df);
    const low = Number(Math.min(...dfs).toFixed(1));
    const high = Number(Math.max(...dfs).toFixed(1));
    const widened = group.filter((use) => use.use === "widened").length;
    const checks = `${group.length} check${group.length === 1 ? "" : "s"}`;
    const widenedText =
      widened > 0
        ? `; widened in ${widened}, whose runs were significantly noisier than it says: their own estimate stood`
        : "";
    return `${priorPhrase(group[0]!)}, ${low === high ? low : `${low}–${high}`} df (${checks}${widenedText})`;
  });
  return `the ${level} sd pooled with ${parts.join(" and ")}`;
}

/**
 * One line on the noise known before the runs (docs/compare.md, "Noise known in advance"): which
 * measured prior each level of the gated checks' noise was pooled with, how old it was and where the
 * runs contradicted it; or that the run level came from the runs alone.
 */
function priorsLine(verdict: VerdictFile): string[] {
  const noise = verdict.comparisons.filter((c) => c.gated && c.noise?.priors).map((c) => c.noise!);
  if (noise.length === 0) return [];
  const measured = (use: PriorUse | null | undefined): use is PriorUse =>
    use !== null && use !== undefined && use.basis !== "config" && use.use !== "unused";
  const run = levelPriors(noise.map((n) => n.priors?.run).filter(measured), "run-to-run");
  const start = levelPriors(noise.map((n) => n.priors?.start).filter(measured), "start-to-start");
  const parts = [run, start].filter((part): part is string => part !== null);
  if (parts.length === 0)
    return [
      "",
      "Noise basis: the run-to-run sd comes from this comparison's runs alone (no calibration of this runner was given: `calibrate` records one, with which a few runs decide what many would otherwise).",
    ];
  const alone = run === null ? "; the run-to-run sd from the runs alone" : "";
  return ["", `Noise basis: ${parts.join("; ")}${alone}.`];
}

/**
 * The gated family as the method line states it: how many tests Holm ran over, of which kinds, and the
 * tests left out because they cannot reach the level (compare/analyze/gated-family.ts).
 */
function gatedFamilyPhrase(family: VerdictFile["settings"]["gatedFamily"]): string {
  if (!family) return "gated family Holm-corrected";
  const r = family.regression;
  const kinds = nonZeroCounts([
    [r.speed, "speed"],
    [r.capacity, "capacity"],
    [r.guard, "guard"],
    [r.task, "task"],
  ]);
  const leftOut = r.leftOut > 0 ? `; ${r.leftOut} that cannot reach the level left out` : "";
  const detail = kinds.length > 0 || leftOut ? ` (${kinds.join(", ")}${leftOut})` : "";
  const tests = family.familyTests?.total ?? 0;
  if (tests > 0)
    return `gated family of ${r.total} test${r.total === 1 ? "" : "s"}${detail} and ${tests} family test${tests === 1 ? "" : "s"} (a metric across a workload family's cells, ${formatFractionAsPercent(family.familyTests!.weight)} of each grouped check's share) corrected together by a graphical procedure that is Holm's without them`;
  return `gated family of ${r.total} test${r.total === 1 ? "" : "s"}${detail} Holm-corrected together`;
}

/** One line: what the comparison's runs cost, every server start counted. */
function gpuMinutesLine(verdict: VerdictFile): string[] {
  const g = verdict.gpuMinutes;
  if (!g) return [];
  const round = (minutes: number) => (minutes < 10 ? minutes.toFixed(1) : String(Math.round(minutes)));
  const runs = g.sides === "both" ? "measured runs on both sides" : "the candidate's measured runs";
  const starts = `${g.serverStarts} server start${g.serverStarts === 1 ? "" : "s"} at ${round(g.serverStartS / 60)} min each`;
  const stored = g.sides === "both" ? "" : " (the stored baseline was measured once, in its own job)";
  return [
    "",
    `GPU time: ~${round(g.total)} GPU-minutes: ${round(g.runs)} min of ${runs} plus ${starts}${stored}.`,
  ];
}

/** The comment's fold of how it was decided: the mode, the baseline, the GPU time, what the runs catch, the method. */
export function methodFold(verdict: VerdictFile): string {
  const detection = detectionLine(verdict);
  const looks = verdict.settings.looks;
  return fold(
    `How it was decided: ${verdict.mode === "interleaved" ? "interleaved runs" : "a stored baseline"}, looks at ${looks.join("/")} runs per side, ${verdict.settings.gatedFamily ? `Holm over ${verdict.settings.gatedFamily.regression.total} gated tests` : "Holm over the gated checks"}`,
    [
      modeSection(verdict, false).replace(/^### Comparison\n\n/, ""),
      ...(detection ? ["", detection] : []),
      "",
      "The method, step by step, is in the full report.",
    ].join("\n"),
  );
}
