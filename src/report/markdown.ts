import { tallyOf } from "../compare/verdict/summary.js";
import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import { capacityFolds, capacitySection } from "./capacity.js";
import { commentChartsSection } from "./charts/mermaid.js";
import { acceptanceSection, perCellDetails, withinToleranceFold } from "./checks.js";
import { environmentFold, environmentSection, fingerprintDetails } from "./environment.js";
import { escapeCell, escapeHtml, escapeInline } from "./escape.js";
import { familyFindingsSection } from "./families.js";
import {
  besideFiles,
  firstScreenBlocks,
  type PublicationContext,
  type ScreenForm,
  verdictTitles,
} from "./first-screen.js";
import { fold, table } from "./markdown-blocks.js";
import { blocksToMarkdown, markdownMarkup } from "./markup.js";
import { methodFold, modeSection } from "./method.js";
import { qualityFolds, qualitySection } from "./quality.js";
import { runFileLabel, withoutMachinePaths } from "./run-files.js";
import { specDecodeFold, specDecodeSection } from "./spec-decode.js";

/**
 * The markdown report, in two forms rendered from the same verdict by the same sections: the comment
 * (`comment.md`, what the action posts on the pull request: the first screen, then a fold for each part a
 * reviewer may want, with a summary that says what is inside) and the long form (`report.md`, the job
 * summary: the first screen, then every table in full). Each section has its comment form and its long
 * form; both shed detail in the same order when they exceed the budget.
 */

/** GitHub's limit on a comment body. */
export const commentBudget = 65_536;
/**
 * The long form's: half the job summary's 1 MiB (a character can take several bytes there), so every
 * cell's every metric stays in the summary of a large matrix.
 */
export const reportBudget = 512 * 1024;

type ReportForm = Exclude<ScreenForm, "terminal">;

interface Section {
  /** The long form's (report.md, the job summary). */
  report: string;
  /** The comment's: usually a fold; "" leaves it to the full report. */
  comment: string;
  /** What replaces it in either form when the budget is short; null for the sections never shed. */
  short: string | null;
  /** Lower sheds first. */
  shedRank: number;
}

/** The headline's words, for report.html: verdict title, headline, counts (plain text). */
export function headlineWords(verdict: VerdictFile): { title: string; said: string; counts: string } {
  const c = verdict.counts;
  const counts = `${c.regression} regressed · ${c.improvement} improved · ${c.withinTolerance} within tolerance · ${c.inconclusive} inconclusive — ${c.gated} gated checks in ${verdict.cells.length} cell${verdict.cells.length === 1 ? "" : "s"}`;
  // The counts line says the tally the headline ends with: it is said once.
  const tally = ` (${tallyOf(verdict.counts)})`;
  const said = verdict.headline.endsWith(tally) ? verdict.headline.slice(0, -tally.length) : verdict.headline;
  return { title: verdictTitles[verdict.verdict], said, counts };
}

/** A warning as published: no path of the machine, escaped for text. */
function warningText(warning: string, max: number): string {
  return escapeInline(withoutMachinePaths(warning), max);
}

function warningsSection(verdict: VerdictFile, limit: number): string {
  if (verdict.warnings.length === 0) return "";
  const shown = verdict.warnings.slice(0, limit).map((w) => `- ${warningText(w, 300)}`);
  if (verdict.warnings.length > limit)
    shown.push(`- … and ${verdict.warnings.length - limit} more (see verdict.json)`);
  return ["### Warnings", "", ...shown].join("\n");
}

function warningsFold(verdict: VerdictFile): string {
  const count = verdict.warnings.length;
  if (count === 0) return "";
  return fold(
    `${count} warning${count === 1 ? "" : "s"}`,
    warningsSection(verdict, 10).replace(/^### Warnings\n\n/, ""),
  );
}

/** Excluded runs the comment lists; the long form lists them all. */
const maxExcludedRows = 10;

function excludedRows(
  verdict: VerdictFile,
  reasonChars: number,
  limit = Number.POSITIVE_INFINITY,
): string[][] {
  return verdict.runs.excluded
    .slice(0, limit)
    .map((run) => [
      escapeCell(runFileLabel(run), 120),
      escapeCell(withoutMachinePaths(run.reasons.join("; ")), reasonChars),
    ]);
}

function excludedSection(verdict: VerdictFile, full: boolean): string {
  const excluded = verdict.runs.excluded;
  if (excluded.length === 0) return "";
  if (!full) return `### Runs excluded\n\n${excluded.length} runs were excluded (details in verdict.json).`;
  return ["### Runs excluded", "", table(["Run", "Why"], excludedRows(verdict, 300))].join("\n");
}

function excludedFold(verdict: VerdictFile): string {
  const count = verdict.runs.excluded.length;
  if (count === 0) return "";
  return fold(
    `${count} run${count === 1 ? "" : "s"} excluded, and why`,
    [
      table(["Run (in the evidence)", "Why"], excludedRows(verdict, 90, maxExcludedRows)),
      "",
      `${count > maxExcludedRows ? `${count - maxExcludedRows} more, and ` : ""}the full reasons are in the full report; files are named relative to each side's results.`,
    ].join("\n"),
  );
}

/** The pictures, folded in the comment (GitHub draws mermaid inside a fold when it is opened). */
function picturesFold(verdict: VerdictFile): string {
  const pictures = commentChartsSection(verdict, undefined, { pointer: false });
  if (pictures === "") return "";
  // The charts' own titles (mermaid-safe labels: letters, digits and a few marks) say what is inside.
  const titles = [...pictures.matchAll(/^ {2}title "([^"]*)"$/gm)].map((m) => m[1]!);
  return fold(escapeHtml(`Pictures: ${titles.join("; ")}`, 200), pictures.replace(/^### Pictures\n\n/, ""));
}

/** The history section's comment form: folded under its heading, unless it says main already regressed. */
function extraSectionFold(section: string): string {
  if (/Main already regressed/.test(section)) return section;
  const heading = /^### (.+)\n/.exec(section);
  return heading ? fold(escapeHtml(heading[1]!, 80), section.slice(heading[0].length)) : section;
}

export interface RenderOptions {
  form: ReportForm;
  /** Where it is published (links to the full report, the override label); default: files beside it. */
  context?: PublicationContext;
  /** Characters before detail is shed: commentBudget for the comment, reportBudget for the long form. */
  budget?: number;
  /** Sections rendered elsewhere (report/history.ts), after the first screen; shed before warnings. */
  extraSections?: readonly string[];
}

/**
 * The comment or the long form. Sections shed in a fixed order when the body would exceed the budget:
 * the pictures, then per-cell detail, then all conditions, then the excluded-run table, then the
 * environment differences, then warnings. The first screen and the gated checks are never shed.
 */
export function renderMarkdown(verdict: VerdictFile, options: RenderOptions): string {
  const { form } = options;
  const budget = options.budget ?? (form === "comment" ? commentBudget : reportBudget);
  return fitToBudget(verdictSections(verdict, options), verdict, form, budget);
}

/**
 * The sections of a verdict, each in its long form, its comment form (folded), its short form (null: never
 * shed), and its rank in the order they are shed.
 */
function verdictSections(verdict: VerdictFile, options: RenderOptions): Section[] {
  const { form } = options;
  const context = options.context ?? besideFiles;
  const firstScreen = blocksToMarkdown(firstScreenBlocks(verdict, { ...context, form }, markdownMarkup));
  // A comparison of capacity cells only has no per-metric checks: its acceptance is the capacity section's.
  const capacityOnly = verdict.cells.length === 0 && (verdict.capacity?.length ?? 0) > 0;
  return [
    { report: firstScreen, comment: firstScreen, short: null, shedRank: Number.POSITIVE_INFINITY },
    ...(options.extraSections ?? []).map((section) => ({
      report: section,
      comment: extraSectionFold(section),
      short: "",
      shedRank: 4.5,
    })),
    {
      report: capacityOnly ? "" : acceptanceSection(verdict),
      comment: withinToleranceFold(verdict),
      short: form === "comment" ? "" : null,
      shedRank: 3.5,
    },
    // A family finding is in the first screen's table; the long form says it in its own words too.
    { report: familyFindingsSection(verdict), comment: "", short: null, shedRank: Infinity },
    { report: capacitySection(verdict), comment: capacityFolds(verdict), short: null, shedRank: Infinity },
    { report: qualitySection(verdict), comment: qualityFolds(verdict), short: null, shedRank: Infinity },
    { report: specDecodeSection(verdict), comment: specDecodeFold(verdict), short: "", shedRank: 2.5 },
    // The pictures (mermaid, report/charts/mermaid.ts) go first when the comment is over budget.
    { report: commentChartsSection(verdict), comment: picturesFold(verdict), short: "", shedRank: -1 },
    {
      report: modeSection(verdict),
      comment: methodFold(verdict),
      short: modeSection(verdict, false),
      shedRank: 7,
    },
    {
      report: warningsSection(verdict, 50),
      comment: warningsFold(verdict),
      short: warningsSection(verdict, 3),
      shedRank: 4,
    },
    {
      report: excludedSection(verdict, true),
      comment: excludedFold(verdict),
      short: excludedSection(verdict, false),
      shedRank: 2,
    },
    {
      report: environmentSection(verdict, true),
      comment: environmentFold(verdict),
      short: environmentSection(verdict, false),
      shedRank: 3,
    },
    { report: fingerprintDetails(verdict), comment: "", short: "", shedRank: 1 },
    { report: perCellDetails(verdict), comment: "", short: "", shedRank: 0 },
  ];
}

/**
 * The sections in `form`, joined with the footer; while over the budget, sections take their short form
 * in shed order (the text then says so), and a text still over it is cut with a note.
 */
function fitToBudget(
  sections: readonly Section[],
  verdict: VerdictFile,
  form: RenderOptions["form"],
  budget: number,
): string {
  const footer = `<sub>vllm-perf-gate ${escapeHtml(verdict.tool.version, 40)} · verdict.json schema ${verdict.schemaVersion}</sub>`;
  const render = (parts: readonly string[]) =>
    `${[...parts.filter((p) => p.length > 0), footer].join("\n\n")}\n`;
  const current = sections.map((s) => s[form]);
  let text = render(current);
  const order = sections
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.short !== null && s[form] !== "")
    .sort((a, b) => a.s.shedRank - b.s.shedRank);
  let shedAny = false;
  for (const { s, i } of order) {
    if (text.length <= budget) break;
    current[i] = s.short!;
    shedAny = true;
    text = render([
      ...current,
      "_Some detail was left out to fit the comment size limit; verdict.json has everything._",
    ]);
  }
  if (text.length > budget) {
    // Only reachable with hundreds of gated checks: keep the head, say so plainly.
    const note = "\n\n_Truncated to fit the comment size limit; verdict.json has everything._\n";
    text = text.slice(0, budget - note.length) + note;
  } else if (!shedAny) text = render(current);
  return text;
}

/** Both forms of one verdict in one place: report.md (and the job summary) and comment.md. */
export function renderReports(
  verdict: VerdictFile,
  options: Omit<RenderOptions, "form"> = {},
): { report: string; comment: string } {
  return {
    report: renderMarkdown(verdict, { ...options, form: "report" }),
    comment: renderMarkdown(verdict, { ...options, form: "comment" }),
  };
}
