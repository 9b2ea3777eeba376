import type { OverallVerdict, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { budgetSpentLine } from "./budget.js";
import { capacityAnswerRows } from "./capacity.js";
import { Footnotes } from "./checks.js";
import { type Finding, findingsOf, type Meaning } from "./findings.js";
import {
  describeMetricRef,
  formatFractionAsPercent,
  formatInterval,
  noBreakSpace,
  nonZeroCounts,
} from "./format.js";
import type { Block, Markup, Tone } from "./markup.js";

/**
 * The first screen of the report (the first ~25 rendered lines of the PR comment at 900 px, and what the
 * terminal prints): everything a reviewer acts on. It is a list of small parts (`firstScreenParts`), each
 * a function of the verdict and where it is published that returns its blocks (empty when it has nothing
 * to say): the verdict and its reason, the override label, a change of method, the table of findings (each decided and
 * undecided gated check, verdict first), what would settle the open ones, the capacity at the SLOs, what
 * it means for users, a mixed result, cells not compared, excluded runs, the links to the full report.
 * A new fact for the first screen is one more part in the list.
 *
 * The parts write through a `Markup`: markdown for the comment and report.md (every outside string
 * through the escaper of its context), plain text with colours for the terminal.
 */

/** Where the report is published, for the parts that link to the rest or speak of the override label. */
export interface PublicationContext {
  links: ReportLinks | null;
  override: OverrideState | null;
  /**
   * Why the job compared another way than it set out to (the action's `auto` gating a pull request
   * against the stored baseline because the base commit's config could not be had); absent: it did not.
   */
  methodChange?: string | null;
}

/**
 * Where the full report is: in an Actions run (the job summary, and the evidence artifact whose
 * `compare/report.html` has the charts), or as files beside this one (`compare`, the demo).
 */
type ReportLinks =
  | { kind: "actions-run"; runUrl: string; artifactName: string }
  | { kind: "beside"; report: string; html: string };

/** The override label of a gate: its name, whether it is on the pull request and who applied it. */
export interface OverrideState {
  label: string;
  /** The verdict fails the check (before the label is considered). */
  failing: boolean;
  applied: boolean;
  /** A GitHub login, already checked to be one; null when the label events did not say. */
  appliedBy: string | null;
}

/** Publication context of a report read on its own (compare, the demo): the files beside it. */
export const besideFiles: PublicationContext = {
  links: { kind: "beside", report: "report.md", html: "report.html" },
  override: null,
};

/** Where a first screen is shown: atop the PR comment, atop the long report, or in a terminal. */
export type ScreenForm = "comment" | "report" | "terminal";

export type ScreenContext = PublicationContext & { form: ScreenForm };

export type FirstScreenPart = (verdict: VerdictFile, context: ScreenContext, markup: Markup) => Block[];

export const verdictIcons: Record<OverallVerdict, string> = {
  pass: "✅",
  regression: "❌",
  inconclusive: "⚠️",
  "not-comparable": "🚫",
  error: "⛔",
};

export const verdictTitles: Record<OverallVerdict, string> = {
  pass: "pass",
  regression: "regression",
  inconclusive: "inconclusive",
  "not-comparable": "not comparable",
  error: "error",
};

const findingLabels: Record<Finding["verdict"], string> = {
  regression: "🔴 regression",
  improvement: "🟢 improvement",
  inconclusive: "🟡 inconclusive",
};

const findingTones: Record<Finding["verdict"], Tone> = {
  regression: "bad",
  improvement: "good",
  inconclusive: "open",
};

const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

/** "A, B and 3 more": at most `shown` names. */
function nameList(names: readonly string[], shown = 3): string {
  const head = names.slice(0, shown);
  const rest = names.length - head.length;
  if (rest > 0) return `${head.join(", ")} and ${rest} more`;
  return head.length <= 1 ? (head[0] ?? "") : `${head.slice(0, -1).join(", ")} and ${head.at(-1)}`;
}

/** The checks a reason names: "TTFT p95 of longgen". */
function checkNames(findings: readonly Finding[], markup: Markup): string {
  return nameList(findings.map((f) => `${f.check.replace(/ [↑↓]$/, "")} of ${markup.text(f.cell, 60)}`));
}

/** The one-line reason under the verdict. */
function reason(verdict: VerdictFile, findings: readonly Finding[], markup: Markup): string {
  const regressions = findings.filter((f) => f.verdict === "regression");
  const improvements = findings.filter((f) => f.verdict === "improvement");
  const open = findings.filter((f) => f.verdict === "inconclusive");
  switch (verdict.verdict) {
    case "regression": {
      const quality = regressions.filter((f) => f.kind === "quality");
      const family = regressions.filter((f) => f.kind === "family");
      const speed = regressions.filter((f) => f.kind === "speed" || f.kind === "capacity");
      const parts: string[] = [];
      const mixed = verdict.mixed.length > 0 ? "; other phases got better (a mixed result)" : "";
      if (speed.length > 0)
        parts.push(
          `${plural(speed.length, "gated check")} got worse beyond the tolerance: ${checkNames(speed, markup)}${mixed}`,
        );
      if (family.length > 0)
        parts.push(
          `${speed.length > 0 ? "On average across a workload family's cells, " : "No cell alone, but on average across a workload family's cells, "}${checkNames(family, markup)} got worse beyond the tolerance${speed.length > 0 ? "" : mixed}`,
        );
      if (quality.length > 0)
        parts.push(
          `${plural(quality.length, "quality check")} got worse: ${checkNames(quality, markup)}; the outputs changed, so no speed result is an improvement`,
        );
      return `${parts.join(". ")}.`;
    }
    case "pass":
      return improvements.length > 0
        ? `No gated check got worse beyond the tolerance; ${checkNames(improvements, markup)} improved.`
        : "No gated check got worse beyond the tolerance.";
    case "inconclusive":
      return `The runs cannot yet tell ${open.length === 1 ? "1 check" : `${open.length} checks`} from a regression: ${checkNames(open, markup)}.`;
    case "error": {
      const broken = verdict.cells
        .filter((cell) => cell.status.startsWith("missing-"))
        .map((cell) => markup.text(cell.name, 60));
      const excluded = verdict.runs.excluded.length;
      if (broken.length === 0) return `${verdict.headline.replace(/^[^:]+: /, "")}.`;
      return `${nameList(broken)} ${broken.length === 1 ? "has" : "have"} no usable runs on one side${excluded > 0 ? `: ${excluded} of ${excluded + verdict.runs.used.length} runs were excluded` : ""}.`;
    }
    case "not-comparable":
      // The headline is compare's own words with counts only.
      return `${verdict.headline.replace(/^[^:]+: /, "")}.`;
  }
}

/** "10 gated checks in 3 cells: 1 regressed · 5 within tolerance · 4 inconclusive · tolerance ±10%". */
function tally(verdict: VerdictFile, markup: Markup): string {
  const c = verdict.counts;
  const notDecidable = verdict.budget?.notDecidable ?? 0;
  const parts = nonZeroCounts(
    [
      [c.regression, "regressed"],
      [c.improvement, "improved"],
      [c.withinTolerance, "within tolerance"],
      [c.inconclusive - notDecidable, "inconclusive"],
      [notDecidable, "not decidable at this budget"],
    ],
    (count) => markup.strong(String(count)),
  );
  const cells = verdict.cells.length + (verdict.capacity?.length ?? 0);
  const checks = c.gated > 0 ? `${plural(c.gated, "gated check")} in ` : "";
  return `${checks}${plural(cells, "cell")}${parts.length > 0 ? `: ${parts.join(" · ")}` : ""} · tolerance ±${formatFractionAsPercent(verdict.settings.tolerance)}`;
}

/** The fields that make the sides not comparable, each with its value on both sides (at most `limit`). */
function blockingDifferenceItems(verdict: VerdictFile, markup: Markup, limit = 5): string[] {
  const blocking = verdict.fingerprints.differences.filter((d) => !d.allowed && !d.informational);
  const value = (v: unknown) =>
    v === undefined || v === null ? "–" : typeof v === "string" ? v : JSON.stringify(v);
  const items = blocking
    .slice(0, limit)
    .map(
      (d) =>
        `${markup.text(d.field, 80)}: ${markup.text(value(d.baseline), 60)} (baseline) vs ${markup.text(value(d.candidate), 60)} (candidate)`,
    );
  if (blocking.length > limit) items.push(`… and ${blocking.length - limit} more (see verdict.json)`);
  return items;
}

const verdictHead: FirstScreenPart = (verdict, _context, markup) => {
  const findings = findingsOf(verdict);
  const blocks: Block[] = [
    {
      kind: "heading",
      verdict: verdict.verdict,
      title: verdictTitles[verdict.verdict],
      icon: verdictIcons[verdict.verdict],
    },
    { kind: "paragraph", lines: [markup.strong(reason(verdict, findings, markup)), tally(verdict, markup)] },
  ];
  const blocking = blockingDifferenceItems(verdict, markup);
  if (blocking.length > 0) blocks.push({ kind: "list", title: "Not comparable:", items: blocking });
  return blocks;
};

/** Most findings the first screen's table shows; the rest are counted under it. */
const maxFindingRows = 20;
/**
 * Most open checks that get a row each; with more, the table has the decided ones and the open checks
 * are listed per cell under "What it means" (a matrix of 19 cells can leave dozens open at a look).
 */
const maxOpenRows = 10;

/** The findings with a row in the table. */
function tableFindings(findings: readonly Finding[]): Finding[] {
  const open = findings.filter((f) => f.verdict === "inconclusive");
  return open.length > maxOpenRows ? findings.filter((f) => f.verdict !== "inconclusive") : [...findings];
}

/**
 * The findings table, verdict first: cell, check (and its tolerance when checks differ in it), baseline →
 * candidate, change and decision interval; a note is a footnote under the table.
 */
function findingsTable(findings: readonly Finding[], verdict: VerdictFile, markup: Markup): Block[] {
  if (findings.length === 0) return [];
  const shown = findings.slice(0, maxFindingRows);
  const tolerances = new Set(shown.map((f) => f.tolerance));
  const sharedTolerance =
    tolerances.size === 1 &&
    shown[0]!.tolerance === `±${formatFractionAsPercent(verdict.settings.tolerance)}`;
  const notes = new Footnotes();
  // No-break spaces: a verdict and a check each stay on one line of the narrow table.
  const oneLine = (text: string) => text.replaceAll(" ", noBreakSpace);
  const rows = shown.map((f) => {
    return [
      markup.tone(findingTones[f.verdict], `${oneLine(findingLabels[f.verdict])}${notes.mark(f.note)}`),
      markup.cell(f.cell, 40),
      // Checks of different tolerances (a guard's points beside a latency's percent) say theirs.
      sharedTolerance ? oneLine(f.check) : `${oneLine(f.check)} (${oneLine(f.tolerance)})`,
      f.values,
      // The change and its decision interval in one column: the table stays within 900 px.
      f.interval === "–" ? f.change : `${f.change} (${f.interval})`,
    ];
  });
  const header = [
    "Verdict",
    "Cell",
    sharedTolerance ? "Check" : "Check (tolerance)",
    "Baseline → candidate",
    "Change (interval)",
  ];
  const footnotes = notes.text((note) => markup.text(note, 160));
  const more = findings.length - shown.length;
  return [
    {
      kind: "table",
      header,
      rows,
      notes: [
        ...(footnotes ? [footnotes] : []),
        ...(more > 0 ? [`${more} more in the full report`] : []),
        "Interval: the decision interval of the change; a regression when all of it lies beyond the tolerance, within tolerance when its worse end is inside",
      ].join(" · "),
    },
  ];
}

const findingsPart: FirstScreenPart = (verdict, _context, markup) =>
  findingsTable(tableFindings(findingsOf(verdict)), verdict, markup);

/** "about 3 GPU-minutes": minutes for people. */
function gpuMinutes(minutes: number): string {
  return `${minutes < 10 ? Number(minutes.toFixed(1)) : Math.round(minutes)} GPU-minutes`;
}

/** What the adaptive loop asks for next, and what would settle the open checks, with their GPU cost. */
const settling: FirstScreenPart = (verdict, _context, markup) => {
  const lines: string[] = [];
  const n = verdict.nextLook;
  if (n) {
    const added = `add ${n.addCandidateRuns} candidate${n.addBaselineRuns > 0 ? ` and ${n.addBaselineRuns} baseline` : ""} run${n.addCandidateRuns + n.addBaselineRuns === 1 ? "" : "s"}`;
    const cost = n.gpuMinutes === undefined ? "" : `, about ${gpuMinutes(n.gpuMinutes)}`;
    lines.push(
      `${markup.strong("More runs needed:")} ${n.runsPerSide} runs per side (${added}${cost}): ${markup.text(n.reason, 300)}.`,
    );
  }
  const settle = settleSentence(verdict, markup);
  if (settle) lines.push(settle);
  const atTolerance = atToleranceSentence(verdict, markup);
  if (atTolerance) lines.push(atTolerance);
  return lines.length > 0 ? [{ kind: "paragraph", lines }] : [];
};

/** Under a budget: what was spent of it, and the smallest change each metric's checks could catch. */
const budgetPart: FirstScreenPart = (verdict, _context, markup) => {
  const line = budgetSpentLine(verdict);
  return line === null
    ? []
    : [{ kind: "paragraph", lines: [`${markup.strong("Budget:")} ${markup.text(line, 600)}.`] }];
};

/** The maximum of at-the-tolerance checks named in the first screen; the rest are counted. */
const atToleranceShown = 3;

/**
 * "At the tolerance: TTFT p95 in rag-fresh-low +4.8% … +5.3% (tolerance 5%)": checks whose estimate
 * sits on the tolerance, which more runs would not decide, so the loop stopped for them.
 */
function atToleranceSentence(verdict: VerdictFile, markup: Markup): string | null {
  const checks = verdict.atTolerance ?? [];
  if (checks.length === 0) return null;
  const named = checks
    .slice(0, atToleranceShown)
    .map(
      (c) =>
        `${describeMetricRef(c.metric)} in ${markup.text(c.cell, 60)} ${formatInterval(c.ci)} (tolerance ${formatFractionAsPercent(c.tolerance)})`,
    );
  const more = checks.length - named.length;
  return `${markup.strong("At the tolerance:")} ${named.join("; ")}${more > 0 ? `; ${more} more` : ""}. A true change this close to the tolerance is not decided by more runs up to repeats.max, so none were added for ${checks.length === 1 ? "it" : "them"}.`;
}

/**
 * "About 7 usable runs per side (2 more) and ~24 GPU-minutes would settle it", for an inconclusive
 * verdict, with what was spent so far.
 */
export function settleSentence(verdict: VerdictFile, markup: Markup): string | null {
  const s = verdict.settle;
  if (!s) return null;
  const spent = verdict.gpuMinutes ? `; spent so far: ~${gpuMinutes(verdict.gpuMinutes.total)}` : "";
  if (s.runsPerSide === null)
    return `More runs up to repeats.max would not settle ${markup.text(nameList(s.cells), 200)} with the current estimates${spent}.`;
  return `About ${s.runsPerSide} usable runs per side (${s.addRuns} more) and ~${gpuMinutes(s.gpuMinutes ?? 0)} would settle it if the estimates hold${spent}.`;
}

/** Per capacity cell: requests per hour (a session cell's sessions per GPU-hour) at the SLOs, and how long the slowest users wait there, both sides. */
const capacityAnswers: FirstScreenPart = (verdict, _context, markup) => {
  const checks = verdict.capacity ?? [];
  if (checks.length === 0) return [];
  const answer = capacityAnswerRows(checks, (cell) => markup.cell(cell, 40));
  return [
    { kind: "paragraph", lines: [`${markup.strong("Capacity at the SLOs")}: ${answer.slos.join("; ")}.`] },
    {
      kind: "table",
      header: answer.header,
      rows: answer.rows,
      notes: answer.note,
    },
  ];
};

/** Most cells "What it means" speaks of. */
const maxMeaningCells = 8;

/**
 * What the findings mean for users: one item per decided finding, one per cell for the open ones. Never a
 * cell where nothing was found.
 */
const meaning: FirstScreenPart = (verdict, _context, markup) => {
  const findings = findingsOf(verdict).filter((f) => f.meaning !== null);
  if (findings.length === 0) return [];
  // One item per cell: what was decided there, then what is still open; findings of one subject
  // ("the slowest 5% wait") in one clause.
  const byCell = new Map<string, { decided: Meaning[]; open: Meaning[] }>();
  for (const f of findings) {
    const entry = byCell.get(f.cell) ?? { decided: [], open: [] };
    (f.verdict === "inconclusive" ? entry.open : entry.decided).push(f.meaning!);
    byCell.set(f.cell, entry);
  }
  const clauses = (meanings: readonly Meaning[], join: string) => {
    const bySubject = new Map<string, string[]>();
    for (const m of meanings) bySubject.set(m.subject, [...(bySubject.get(m.subject) ?? []), m.detail]);
    return [...bySubject].map(([subject, details]) => `${subject} ${details.join(join)}`);
  };
  const items = [...byCell].map(([cell, { decided, open }]) => {
    const said = [
      ...clauses(decided, " and "),
      ...(open.length > 0 ? [`not settled yet whether ${clauses(open, ", ").join("; or whether ")}`] : []),
    ];
    return `${markup.strong(markup.text(cell, 60))}: ${said.join("; ")}.`;
  });
  const shown = items.slice(0, maxMeaningCells);
  if (items.length > shown.length)
    shown.push(`… and ${items.length - shown.length} more cells (in the full report).`);
  return [{ kind: "list", title: "What it means:", items: shown }];
};

/** Some phases better, others worse: "faster" depends on the phase. */
const mixed: FirstScreenPart = (verdict, _context, markup) => {
  if (verdict.mixed.length === 0) return [];
  const names = (refs: readonly string[]) =>
    refs.map((ref) => markup.text(describeMetricRef(ref), 120)).join(", ");
  return [
    {
      kind: "list",
      title: "Mixed result: some phases got better while others got worse.",
      items: verdict.mixed.map(
        (m) => `${markup.text(m.cell, 60)}: better ${names(m.better)}; worse ${names(m.worse)}.`,
      ),
    },
  ];
};

/** Cells that could not be compared, and why. */
const notCompared: FirstScreenPart = (verdict, _context, markup) => {
  const problems = verdict.cells.filter((cell) => cell.status !== "compared");
  if (problems.length === 0) return [];
  const items = problems
    .slice(0, 3)
    .map(
      (cell) =>
        `${markup.strong(markup.text(cell.name, 60))}: ${cell.status.replace(/-/g, " ")} (${cell.baselineRuns} baseline, ${cell.candidateRuns} candidate usable runs)${cell.note ? `: ${markup.text(cell.note, 200)}` : ""}.`,
    );
  if (problems.length > 3) items.push(`… and ${problems.length - 3} more cells.`);
  return [{ kind: "list", title: "Not fully compared:", items }];
};

/** How many runs were excluded, by the kind of their first reason ("client-bound: …"). */
const excluded: FirstScreenPart = (verdict, context, markup) => {
  const runs = verdict.runs.excluded;
  if (runs.length === 0) return [];
  const kinds = new Map<string, number>();
  for (const run of runs) {
    const kind = (run.reasons[0] ?? "excluded").split(":")[0]!.trim();
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const byKind = [...kinds]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([kind, count]) => `${count} ${markup.text(kind, 40)}`)
    .join(", ");
  const total = verdict.runs.used.length + runs.length;
  return [
    {
      kind: "paragraph",
      lines: [
        `${markup.strong(`${runs.length} of ${total} runs excluded`)} (${byKind}${kinds.size > 3 ? ", …" : ""}); ${context.form === "terminal" ? "report.md lists them" : "the list is below"}.`,
      ],
    },
  ];
};

/** The override label: applied (by whom), or how to accept a failing verdict. */
export function overrideLine(override: OverrideState, markup: Markup): string | null {
  if (override.applied && override.failing) {
    const by = override.appliedBy
      ? markup.code(override.appliedBy)
      : "someone (the label events did not say who)";
    return `${markup.strong("Accepted:")} the label ${markup.code(override.label)} was applied by ${by}, so this check passes despite the verdict.`;
  }
  if (override.failing)
    return `This check fails. Adding the label ${markup.code(override.label)} to the pull request accepts the result (the comment then names who added it).`;
  return null;
}

const override: FirstScreenPart = (_verdict, context, markup) => {
  const line = context.override ? overrideLine(context.override, markup) : null;
  return line ? [{ kind: "paragraph", lines: [line] }] : [];
};

/** A change of method, said where the verdict is read, not only in the provenance line below. */
export function methodChangeLine(change: string, markup: Markup): string {
  return `${markup.strong("Method changed:")} ${markup.text(change, 400)}.`;
}

const methodChange: FirstScreenPart = (_verdict, context, markup) =>
  context.methodChange
    ? [{ kind: "paragraph", lines: [methodChangeLine(context.methodChange, markup)] }]
    : [];

/** Where the rest is: the comment links to the full report and the charts, the long form to the charts. */
const links: FirstScreenPart = (_verdict, context, markup) => {
  const where = context.links;
  if (!where || context.form === "terminal") return [];
  const charts =
    where.kind === "actions-run"
      ? `${markup.code("compare/report.html")} in the artifact ${markup.link(markup.code(where.artifactName), `${where.runUrl}#artifacts`)}`
      : `${markup.code(where.html)} (beside this file)`;
  const full =
    where.kind === "actions-run" ? markup.link("job summary", where.runUrl) : markup.code(where.report);
  const text =
    context.form === "comment"
      ? `Full report: ${full} (every metric of every cell) · with charts: ${charts}`
      : `With charts: ${charts}`;
  return [{ kind: "paragraph", lines: [text] }];
};

/** The first screen, in order. */
export const firstScreenParts: readonly FirstScreenPart[] = [
  verdictHead,
  override,
  methodChange,
  findingsPart,
  settling,
  budgetPart,
  capacityAnswers,
  meaning,
  mixed,
  notCompared,
  excluded,
  links,
];

export function firstScreenBlocks(verdict: VerdictFile, context: ScreenContext, markup: Markup): Block[] {
  return firstScreenParts.flatMap((part) => part(verdict, context, markup));
}
