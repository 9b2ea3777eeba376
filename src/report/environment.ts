import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import { escapeCell, escapeHtml, escapeInline, escapeValue } from "./escape.js";
import { fold, table } from "./markdown-blocks.js";

/**
 * The recorded conditions of both sides: the fields that differ (an excerpt of each value around where
 * the two first differ, the full values wrapped in a fold), and every field recorded (a fold).
 */

/** Differing values are shown around where they differ, this many characters each in the table. */
const differenceExcerptLength = 60;
/** Full values of differing fields are wrapped at this width, and cut after this many characters. */
const fullValueWrap = 100;
const fullValueMaxChars = 4000;
/** Differing fields listed in the table (and their full values); the rest are counted, all in verdict.json. */
const maxDifferenceRows = 100;

function valueText(value: unknown): string {
  if (value === undefined || value === null) return "–";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The part of `text` from a little before `from` (where the two values first differ), at most `width`
 * characters, with "…" where something was left out: a long `server.command` that differs only near its
 * end shows that end, not the shared beginning.
 */
export function excerptAround(
  text: string,
  from: number,
  width = differenceExcerptLength,
  /** The shorter of the two values, so both excerpts start at the same place and line up. */
  alignTo = text.length,
): string {
  const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, " ");
  if (flat.length <= width) return flat;
  const lead = 12;
  const start = Math.max(0, Math.min(from - lead, Math.min(flat.length, alignTo) - (width - 1)));
  const head = start > 0 ? "…" : "";
  // The longer value gets its extra characters (up to `width` more), so both end at the same place.
  const room = width - head.length + Math.min(width, Math.max(0, flat.length - alignTo));
  const body = flat.slice(start, start + room);
  return start + room < flat.length ? `${head}${body.slice(0, -1)}…` : `${head}${body}`;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** A long value as lines of at most `width` characters, broken after spaces or commas where possible. */
export function wrapValue(text: string, width = fullValueWrap): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let rest = paragraph;
    while (rest.length > width) {
      const window = rest.slice(0, width);
      const breakAt = Math.max(window.lastIndexOf(" "), window.lastIndexOf(","));
      const cut = breakAt > width / 2 ? breakAt + 1 : width;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    lines.push(rest);
  }
  return lines;
}

/** One field's full value in a <pre> block: HTML-escaped, wrapped, cut at fullValueMaxChars. */
function fullValueBlock(value: unknown): string {
  const text = valueText(value);
  const cut = text.length > fullValueMaxChars;
  const shown = cut ? text.slice(0, fullValueMaxChars) : text;
  const lines = wrapValue(shown).map((line) => escapeHtml(line, Number.POSITIVE_INFINITY));
  if (cut) lines.push(`… ${text.length - fullValueMaxChars} more characters in verdict.json`);
  return `<pre>${lines.join("\n")}</pre>`;
}

/**
 * The differing fields only: each value in the table is an excerpt around where the two sides first
 * differ (so the real difference is visible however long the value), and the full values of those
 * fields follow, wrapped, in a collapsed section.
 */
export function environmentSection(
  verdict: VerdictFile,
  full: boolean,
  { excerpt = differenceExcerptLength, fullValues = true, informational = true } = {},
): string {
  const differences = verdict.fingerprints.differences.filter((d) => informational || !d.informational);
  const lines = ["### Environment", ""];
  if (differences.length === 0) lines.push("Baseline and candidate ran under the same recorded conditions.");
  else if (!full) lines.push(`${differences.length} recorded conditions differ (details in verdict.json).`);
  else {
    const shown = differences.slice(0, maxDifferenceRows);
    const rows = shown.map((d) => {
      const base = valueText(d.baseline);
      const cand = valueText(d.candidate);
      const from = firstDifference(base, cand);
      return [
        escapeCell(d.field, 80),
        escapeCell(
          excerptAround(base, from, excerpt, Math.min(base.length, cand.length)),
          Number.POSITIVE_INFINITY,
        ),
        escapeCell(
          excerptAround(cand, from, excerpt, Math.min(base.length, cand.length)),
          Number.POSITIVE_INFINITY,
        ),
        d.informational ? "yes (recorded only)" : d.allowed ? "yes (under test)" : "**no**",
        d.cells.length > 3
          ? `${d.cells.length} cells`
          : d.cells.map((cell) => escapeCell(cell, 60)).join(", "),
      ];
    });
    lines.push(table(["Field", "Baseline", "Candidate", "Allowed", "Cells"], rows));
    if (differences.length > shown.length) {
      lines.push(
        "",
        `… and ${differences.length - shown.length} more differ (the first ${maxDifferenceRows} are listed; every one is in verdict.json).`,
      );
    }
    const long = shown.filter(
      (d) =>
        fullValues && (valueText(d.baseline).length > excerpt || valueText(d.candidate).length > excerpt),
    );
    if (long.length > 0) {
      lines.push(
        "",
        fold(
          "Full values of the differing fields",
          long
            .flatMap((d) => [
              `**${escapeInline(d.field, 80)}**, baseline:`,
              fullValueBlock(d.baseline),
              "candidate:",
              fullValueBlock(d.candidate),
              "",
            ])
            .join("\n"),
        ),
      );
    }
  }
  return lines.join("\n");
}

export function fingerprintDetails(verdict: VerdictFile): string {
  const base = verdict.fingerprints.baseline;
  const cand = verdict.fingerprints.candidate;
  const fields = [...new Set([...Object.keys(base), ...Object.keys(cand)])].sort();
  if (fields.length === 0) return "";
  const rows = fields.map((field) => [
    escapeCell(field, 80),
    escapeValue(base[field]),
    escapeValue(cand[field]),
  ]);
  return fold("All recorded conditions", table(["Field", "Baseline", "Candidate"], rows));
}

/** The comment's fold of the differing conditions: what differs, whether it is allowed, and where. */
export function environmentFold(verdict: VerdictFile): string {
  const differences = verdict.fingerprints.differences;
  if (differences.length === 0) return "";
  const blocking = differences.filter((d) => !d.allowed && !d.informational).length;
  const recordedOnly = differences.filter((d) => d.informational).length;
  const judged = differences.length - recordedOnly;
  const summary = `Environment: ${judged} recorded condition${judged === 1 ? "" : "s"} differ${judged === 1 ? "s" : ""}${blocking > 0 ? `, ${blocking} not allowed` : ", all allowed (under test)"}${recordedOnly > 0 ? `; ${recordedOnly} recorded only` : ""}`;
  const table =
    judged === 0
      ? "Only fields recorded for information differ (tool build, runner, config hash)."
      : environmentSection(verdict, true, { excerpt: 40, fullValues: false, informational: false }).replace(
          /^### Environment\n\n/,
          "",
        );
  return fold(summary, `${table}\n\nThe full values, and every field recorded, are in the full report.`);
}
