/**
 * Workload families (docs/compare.md#family-tests): the cells a change is likely to move together, whose
 * gated metrics the gate also tests as one combined test per metric. Declared on the cell (`family`), or
 * derived from its name: the part before the first '-' (`chat-fresh-low` → `chat`), the whole name when
 * it has none. A grouping fixed before the runs are seen keeps the tests' error control whatever it is; a
 * good one (cells one change moves alike) is what gives the combined tests their power.
 */
export function cellFamily(cell: { name: string; family?: string | undefined }): string {
  if (cell.family !== undefined) return cell.family;
  const dash = cell.name.indexOf("-");
  return dash > 0 ? cell.name.slice(0, dash) : cell.name;
}
