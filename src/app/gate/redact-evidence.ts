import { readFile, stat, writeFile } from "node:fs/promises";
import { listFilesRecursively } from "../../github/files.js";
import type { Redactor } from "../../server/redact.js";

/** Text files above this are left alone (raw scrapes); launchers redact their logs as they write them. */
const maxRedactedFileBytes = 32 * 1024 * 1024;

/**
 * A last pass over the evidence before it leaves the runner: any known secret value (the token, values of
 * credential-looking variables) still present in a text file is replaced. Returns the files changed.
 */
export async function redactEvidence(dir: string, redactor: Redactor): Promise<string[]> {
  if (redactor.secretCount === 0) return [];
  const changed: string[] = [];
  for (const file of await listFilesRecursively(dir)) {
    if ((await stat(file)).size > maxRedactedFileBytes) continue;
    const bytes = await readFile(file);
    if (bytes.includes(0)) continue; // binary
    const text = bytes.toString("utf8");
    const redacted = redactor.redact(text);
    if (redacted !== text) {
      await writeFile(file, redacted);
      changed.push(file);
    }
  }
  return changed;
}
