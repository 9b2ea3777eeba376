import type {
  GreedyCheck,
  GuardCheck,
  OutputAgreement,
  TaskCheck,
} from "../compare/verdict/quality-schema.js";
import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import { describeMetric } from "../config/metric-names.js";
import { valuesOnBothSides } from "./checks.js";
import { escapeCell, escapeHtml, escapeInline } from "./escape.js";
import { formatFractionAsPercent, formatMetricValue, formatP } from "./format.js";
import { checkMatrix, fold, table } from "./markdown-blocks.js";

/** Guard rows shown in full; beyond it the within-tolerance ones are only counted. */
const guardRowLimit = 40;

const guardVerdictLabels: Record<GuardCheck["verdict"], string> = {
  regression: "🔴 regression",
  "within-tolerance": "⚪ within tolerance",
  inconclusive: "🟡 not judged",
};

function guardRow(check: GuardCheck): string[] {
  const tolerance =
    check.toleranceKind === "points"
      ? `+${Number((check.tolerance * 100).toPrecision(3))} pts`
      : `±${formatFractionAsPercent(check.tolerance)}`;
  const side = (value: number | null, counts: GuardCheck["counts"]["baseline"]) =>
    check.toleranceKind === "points"
      ? `${formatMetricValue(check.metric, value)} (${counts.count}/${counts.requests})`
      : formatMetricValue(check.metric, value);
  return [
    guardVerdictLabels[check.verdict] + (check.note ? ` (${escapeCell(check.note, 160)})` : ""),
    escapeCell(check.cell, 60),
    describeMetric(check.metric),
    tolerance,
    side(check.baseline, check.counts.baseline),
    side(check.candidate, check.counts.candidate),
    formatP(check.p),
  ];
}

/**
 * The quality guards of the report (docs/quality.md): every regression and check not judged in a table,
 * the within-tolerance ones too while the table stays short. Empty when the verdict has no guards.
 */
function qualityGuardSection(verdict: VerdictFile): string {
  const guards = verdict.quality?.guards;
  if (guards === undefined || guards.length === 0) return "";
  const flagged = guards.filter((check) => check.verdict !== "within-tolerance");
  const shown = guards.length <= guardRowLimit ? guards : flagged.slice(0, guardRowLimit);
  const hidden = guards.length - shown.length;
  const regressions = guards.filter((check) => check.verdict === "regression").length;
  const summary =
    regressions > 0
      ? `**${regressions}** of ${guards.length} guard checks regressed: the outputs changed, so no speed result here is an improvement.`
      : `All ${guards.length - flagged.length} judged guard checks are within tolerance.`;
  const header = ["Verdict", "Cell", "Guard", "Tolerance", "Baseline", "Candidate", "p (adj.)"];
  return [
    "### Quality guards",
    "",
    summary,
    ...(shown.length > 0 ? ["", table(header, shown.map(guardRow))] : []),
    ...(hidden > 0 ? ["", `_${hidden} more guard checks within tolerance (verdict.json has them)._`] : []),
    "",
    "Shares of the measured requests pooled over a side's runs (requests counted / measured); a share is a regression when it rose significantly (Fisher's exact test) by more than its points, the output length when its mean moved significantly either way by more than its tolerance; p is Holm-adjusted in the gated family with the speed and task checks (a test that cannot reach the level, such as a share that is 0 on both sides, is left out).",
  ].join("\n");
}

/** Characters of each side of an example shown in the report (verdict.json keeps exampleChars). */
const exampleShownChars = 120;

function agreementCells(a: OutputAgreement): string[] {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return [
    String(a.prompts),
    pct(1 - a.changedShare),
    pct(1 - a.prefixChangedShare),
    a.similarity === null ? "–" : a.similarity.toFixed(3),
    a.logprobDrift === null ? "–" : `${a.logprobDrift.toFixed(3)} nats`,
  ];
}

/** An output excerpt as inline code-free text: escaped for markdown, newlines shown as ⏎, cut short. */
function excerpt(text: string): string {
  const flat = text.replace(/\r\n|\r|\n/g, "⏎");
  const cut = flat.length > exampleShownChars ? `${flat.slice(0, exampleShownChars)}…` : flat;
  return escapeInline(cut, exampleShownChars * 4);
}

/**
 * The greedy-output checks (docs/quality.md): per cell the candidate's agreement with the baseline beside
 * the baseline's own run-to-run agreement, the reasons of a regression, and the most-changed prompts.
 */
function qualityGreedySection(verdict: VerdictFile): string {
  const checks: readonly GreedyCheck[] = verdict.quality?.greedy ?? [];
  if (checks.length === 0) return "";
  const header = [
    "Verdict",
    "Cell",
    "Compared",
    "Prompts",
    "Identical",
    "Same first tokens",
    "Similarity",
    "Logprob drift",
  ];
  const rows: string[][] = [];
  for (const check of checks) {
    const label = check.verdict === "regression" ? "🔴 regression" : "⚪ within tolerance";
    rows.push([
      label,
      escapeCell(check.cell, 60),
      "candidate vs baseline",
      ...agreementCells(check.candidate),
    ]);
    if (check.baselineNoise !== null)
      rows.push([
        "",
        "",
        check.baselineNoiseRuns?.acrossStarts ? "baseline start to start" : "baseline run to run",
        ...agreementCells(check.baselineNoise),
      ]);
  }
  const details: string[] = [];
  for (const check of checks) {
    for (const reason of check.reasons)
      details.push(`- ${escapeInline(check.cell, 60)}: ${escapeInline(reason, 300)}`);
    if (check.examples.length > 0) {
      details.push(
        "",
        `<details><summary>Most-changed outputs: ${escapeHtml(check.cell, 60)}</summary>`,
        "",
        ...check.examples.flatMap((example) => [
          `- prompt ${example.index}, first difference at token ${example.firstDifference}, similarity ${example.similarity.toFixed(3)}`,
          `  - baseline: ${excerpt(example.baseline)}`,
          `  - candidate: ${excerpt(example.candidate)}`,
        ]),
        "",
        "</details>",
      );
    }
  }
  const source = checks.some((c) => c.tokenSource === "words")
    ? "tokens are the server's where it returned logprobs, else whitespace-separated words"
    : "tokens are the server's (logprobs returned)";
  return [
    "### Greedy outputs",
    "",
    table(header, rows),
    ...(details.length > 0 ? ["", ...details] : []),
    "",
    `Same prompts, temperature 0, outputs kept per prompt; ${source}; similarity: 1 − token edit distance / longer length; logprob drift: mean |change| over the tokens both chose alike; the tolerances (quality.greedy) are over the baseline's own differences between two runs, on two server starts where it has them.`,
  ].join("\n");
}

/** Every quality section of the report, in order. */
export function qualitySection(verdict: VerdictFile): string {
  return [qualityGuardSection(verdict), qualityGreedySection(verdict), qualityTaskSection(verdict)]
    .filter((s) => s.length > 0)
    .join("\n\n");
}

/** The task-accuracy checks: each side's accuracy with its Wilson interval, the discordant pairs, p. */
function qualityTaskSection(verdict: VerdictFile): string {
  const checks: readonly TaskCheck[] = verdict.quality?.tasks ?? [];
  if (checks.length === 0) return "";
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const side = (s: TaskCheck["baseline"]) => `${pct(s.accuracy)} (${pct(s.wilson[0])} – ${pct(s.wilson[1])})`;
  const header = [
    "Verdict",
    "Cell",
    "Tasks",
    "Baseline",
    "Candidate",
    "Change",
    "Only baseline right / only candidate",
    "Tolerance",
    "p (adj.)",
  ];
  const rows = checks.map((check) => {
    const change = (check.candidate.accuracy - check.baseline.accuracy) * 100;
    return [
      (check.verdict === "regression" ? "🔴 regression" : "⚪ within tolerance") +
        (check.note ? ` (${escapeCell(check.note, 160)})` : ""),
      escapeCell(check.external === undefined ? check.cell : `${check.cell}: external ${check.external}`, 80),
      check.method === "two-proportion"
        ? `${check.baseline.n ?? "?"} / ${check.candidate.n ?? "?"}`
        : String(check.prompts),
      side(check.baseline),
      side(check.candidate),
      `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change).toFixed(1)} pts`,
      check.method === "two-proportion" ? "unpaired" : `${check.onlyBaseline} / ${check.onlyCandidate}`,
      `−${Number((check.tolerancePoints * 100).toPrecision(3))} pts`,
      formatP(check.p),
    ];
  });
  const confidence = formatFractionAsPercent(checks[0]!.confidence);
  return [
    "### Task accuracy",
    "",
    table(header, rows),
    "",
    `Same tasks on both sides, scored per prompt; accuracy with its ${confidence} Wilson interval; a regression when the exact McNemar test on the discordant pairs (Holm-adjusted in the gated family with the speed and guard checks) finds the candidate worse and the drop exceeds the tolerance (quality.tasks.tolerance_points).` +
      (checks.some((check) => check.method === "two-proportion")
        ? " An external task without per-sample results on both sides is compared unpaired (one-sided two-proportion z-test; its Tasks column shows each side's samples)."
        : ""),
  ].join("\n");
}

/**
 * The comment's quality folds (the first screen has the regressions): the guards within tolerance as a
 * matrix of cells and guards, each side's value; the greedy-output and task tables.
 */
export function qualityFolds(verdict: VerdictFile): string {
  const quality = verdict.quality;
  if (quality === undefined) return "";
  const folds: string[] = [];
  const within = quality.guards.filter((check) => check.verdict === "within-tolerance");
  const notJudged = quality.guards.filter((check) => check.verdict === "inconclusive").length;
  if (within.length > 0)
    folds.push(
      fold(
        `${within.length} guard${within.length === 1 ? "" : "s"} within tolerance${notJudged > 0 ? ` (${notJudged} not judged)` : ""}`,
        checkMatrix(
          "Cell",
          within.map((check) => ({
            cell: escapeCell(check.cell, 40),
            column: describeMetric(check.metric),
            value: valuesOnBothSides(check),
          })),
        ),
      ),
    );
  const greedy = quality.greedy ?? [];
  if (greedy.length > 0)
    folds.push(
      fold(
        `Greedy outputs of ${greedy.length} cell${greedy.length === 1 ? "" : "s"} against the baseline`,
        qualityGreedySection(verdict).replace(/^### .*\n/, ""),
      ),
    );
  const tasks = quality.tasks ?? [];
  if (tasks.length > 0)
    folds.push(
      fold(
        `Task accuracy of ${tasks.length} check${tasks.length === 1 ? "" : "s"}`,
        qualityTaskSection(verdict).replace(/^### .*\n/, ""),
      ),
    );
  return folds.join("\n\n");
}
