import type { RunRecord, ServerStartBasis } from "../../metrics/run-record.js";

/**
 * Which server start measured each run of a side (docs/compare.md, Server starts). A run.json or vLLM
 * result that records its start keeps it. For the others the structure is unknown: by default every run
 * of one input (a results directory, the loose files of a command line, one baseline session) is taken to
 * share one start, the conservative reading, since runs of one start vary less than runs of fresh starts
 * and would otherwise be counted as independent; when the user declares that each run was a fresh start,
 * each gets a start of its own.
 */
export interface ServerStartAssumption {
  /** The user declared every run without a recorded start a fresh start (compare --fresh-starts). */
  freshStarts: boolean;
}

/** The server start a run was measured on; a run that says none is its own start. */
export function startOf(run: RunRecord): string {
  return run.serverStart?.id ?? `run:${run.source}:${run.run ?? ""}`;
}

/** The input a record was read from (loadRuns' `session`): what an unrecorded start is shared within. */
function inputOf(record: RunRecord): string {
  return record.session ?? "(files)";
}

/**
 * The records with a server start each (pure): a recorded start kept, an unrecorded one
 * `unrecorded:<side>:<input>` (assumed shared by the input's runs) or, when declared fresh,
 * `fresh:<side>:<file>` (the run's own).
 */
export function assignServerStarts(
  records: readonly RunRecord[],
  side: string,
  assumption: ServerStartAssumption,
): RunRecord[] {
  return records.map((record) => {
    if (record.serverStart !== undefined) return record;
    const serverStart = assumption.freshStarts
      ? { id: `fresh:${side}:${record.source}`, basis: "declared-fresh" as const }
      : { id: `unrecorded:${side}:${inputOf(record)}`, basis: "assumed-shared" as const };
    return { ...record, serverStart };
  });
}

/** A side's server starts: how many, and how each is known (for the report's "starts per side"). */
export interface ServerStartSummary {
  /** Distinct starts among the runs. */
  starts: number;
  runs: number;
  /** Per basis, its starts and runs (absent: none of that basis). */
  byBasis: Partial<Record<ServerStartBasis, { starts: number; runs: number }>>;
  /** Runs no start was assigned to (records built in memory rather than read by load.ts). */
  unassigned: number;
}

/** Counts the server starts of a side's records, by how each is known. */
export function summarizeServerStarts(records: readonly RunRecord[]): ServerStartSummary {
  const byBasis: ServerStartSummary["byBasis"] = {};
  const seen = new Set<string>();
  let unassigned = 0;
  for (const record of records) {
    const start = record.serverStart;
    if (start === undefined) {
      unassigned++;
      continue;
    }
    const entry = byBasis[start.basis] ?? { starts: 0, runs: 0 };
    entry.runs++;
    if (!seen.has(start.id)) {
      seen.add(start.id);
      entry.starts++;
    }
    byBasis[start.basis] = entry;
  }
  return { starts: seen.size, runs: records.length, byBasis, unassigned };
}
