/**
 * The markdown building blocks every report section uses: a table and a fold. Cells and summaries are
 * the caller's (already escaped for their context: `escapeCell`, `escapeHtml`); nothing here adds text.
 */

/** A GFM table; `rows` hold escaped cells. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * A collapsed section: `<details>` with a summary that says what is inside ("76 checks within
 * tolerance"). The summary is HTML, where markdown is not parsed: our own words, with any part from
 * outside through `escapeHtml`. The body is markdown.
 */
export function fold(summary: string, body: string): string {
  // A blank line after the summary and before the end: GitHub renders the body as markdown only then.
  return `<details><summary>${summary}</summary>\n\n${body.trim()}\n\n</details>`;
}

/**
 * Checks as a matrix: a row per cell, a column per check (in the order first seen), `value` in the
 * crossing. For the folds of many checks where nothing happened: 19 rows instead of 95. `cell` is escaped
 * for a table cell by the caller.
 */
export function checkMatrix(
  corner: string,
  items: readonly { cell: string; column: string; value: string }[],
  /** Column order (default: as first seen). */
  order?: readonly string[],
): string {
  const seen = new Set(items.map((item) => item.column));
  const columns = order ? order.filter((column) => seen.has(column)) : [...seen];
  const rows = new Map<string, Map<string, string>>();
  for (const item of items) {
    const row = rows.get(item.cell) ?? new Map<string, string>();
    row.set(item.column, item.value);
    rows.set(item.cell, row);
  }
  return table(
    [corner, ...columns],
    [...rows].map(([cell, values]) => [cell, ...columns.map((column) => values.get(column) ?? "")]),
  );
}
