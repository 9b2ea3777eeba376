import { listFilesRecursively } from "../../github/files.js";
import type { Outbound } from "../../server/outbound.js";

/** Text files above this are left alone (raw scrapes); what we write goes through the job's seam anyway. */
const maxRedactedFileBytes = 32 * 1024 * 1024;

/**
 * A last pass over the evidence before it leaves the runner, through the job's output seam: any known
 * secret value still present in a text file (one the job did not write itself: a downloaded part, an
 * external task's own files) is replaced. Returns the files changed.
 */
export async function redactEvidence(dir: string, outbound: Outbound): Promise<string[]> {
  const changed: string[] = [];
  for (const file of await listFilesRecursively(dir)) {
    if (await outbound.cleanFile(file, maxRedactedFileBytes)) changed.push(file);
  }
  return changed;
}
