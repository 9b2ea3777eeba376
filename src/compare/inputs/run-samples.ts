import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { answerLatencies, requestLatencies } from "../../metrics/run-metrics.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { type MetricsScrape, scrapeSeries } from "../../metrics/server-metrics.js";
import { requestRecordSchema } from "../../runner/request-schema.js";
import type { VerdictFile } from "../verdict/verdict-schema.js";

/**
 * Reads what the report's distribution and timeline charts need from each used run's directory:
 * `requests.jsonl` (per-request latencies and when they happened) and `scrapes.jsonl` (the /metrics
 * samples). Only runs compare used, only `run.json` inputs (a `vllm bench serve` file has no such
 * neighbours). A file over a limit, unreadable or with invalid lines is skipped or partly read and said
 * in a note: a picture never fails a comparison.
 */

/** Largest requests.jsonl or scrapes.jsonl read for the charts. */
const maxSampleFileBytes = 64 * 1024 * 1024;
/** All sample files of one comparison together. */
const maxSampleTotalBytes = 512 * 1024 * 1024;

/** Per-request samples of one used run (requests.jsonl), and its scrapes (scrapes.jsonl); the charts' input. */
export interface LoadedRunSamples {
  side: "baseline" | "candidate";
  /** As in the run record (not yet cleaned of secrets: matched to the verdict through `asInVerdict`). */
  cell: string;
  run: number | null;
  source: string;
  /** Per successful request, in ms (vllm bench serve's definitions, metrics/run-metrics.ts). */
  ttft: number[];
  tpot: number[];
  e2el: number[];
  /** Every gap between consecutive chunks of every successful request, ms. */
  itl: number[];
  /** The answer's first token and its gaps, of requests that reasoned (metrics/run-metrics.ts answerLatencies). */
  answer_ttft: number[];
  answer_itl: number[];
  /** When each ttft sample's first token came, ms from the start of the measured phase. */
  ttftAt: number[];
  /** When each itl sample's gap ended, ms from the start of the measured phase. */
  itlAt: number[];
  /** When failed requests ended. */
  failedAt: number[];
  scrapes: ReturnType<typeof scrapeSeries>;
  /** Lines of requests.jsonl that were not valid records (skipped). */
  skippedLines: number;
}

export interface LoadedSamples {
  samples: LoadedRunSamples[];
  /** Why some runs have no samples (limits, unreadable files), for the page; cell null: every cell. */
  notes: { cell: string | null; note: string }[];
}

async function readLimited(
  file: string,
  budget: { bytes: number },
): Promise<{ text: string } | { skipped: string } | null> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return null;
  }
  if (size > maxSampleFileBytes)
    return { skipped: `${basename(file)} is over the ${maxSampleFileBytes / 1024 / 1024} MiB chart limit` };
  if (budget.bytes + size > maxSampleTotalBytes)
    return {
      skipped: `the sample files together are over the ${maxSampleTotalBytes / 1024 / 1024} MiB chart limit`,
    };
  budget.bytes += size;
  try {
    return { text: await readFile(file, "utf8") };
  } catch (error) {
    return {
      skipped: `${basename(file)} could not be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    };
  }
}

function parseRequests(text: string, into: LoadedRunSamples): void {
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      into.skippedLines++;
      continue;
    }
    const parsed = requestRecordSchema.safeParse(json);
    if (!parsed.success) {
      into.skippedLines++;
      continue;
    }
    const record = parsed.data;
    if (record.phase !== "measure") continue;
    const latencies = requestLatencies(record);
    if (latencies === null) {
      into.failedAt.push(record.endMs);
      continue;
    }
    into.ttft.push(latencies.ttft);
    into.ttftAt.push(record.sentMs + latencies.ttft);
    into.e2el.push(latencies.e2el);
    if (latencies.tpot !== null) into.tpot.push(latencies.tpot);
    const answer = answerLatencies(record);
    if (answer !== null) {
      if (answer.ttft !== null) into.answer_ttft.push(answer.ttft);
      for (const gap of answer.itl) into.answer_itl.push(gap);
    }
    const chunks = record.chunksUs;
    for (let i = 1; i < chunks.length; i++) {
      into.itl.push((chunks[i]! - chunks[i - 1]!) / 1000);
      into.itlAt.push(record.sentMs + chunks[i]! / 1000);
    }
  }
}

function parseScrapes(text: string): MetricsScrape[] {
  const scrapes: MetricsScrape[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const json = JSON.parse(line) as Partial<MetricsScrape>;
      if (typeof json.atMs !== "number" || !Number.isFinite(json.atMs)) continue;
      scrapes.push({
        phase: json.phase === "before" || json.phase === "after" ? json.phase : "during",
        atMs: json.atMs,
        status: typeof json.status === "number" ? json.status : null,
        text: typeof json.text === "string" ? json.text : null,
        error: null,
      });
    } catch {
      // A torn last line (a crash mid-write) or a foreign line: the scrape is left out.
    }
  }
  return scrapes;
}

/** The samples of every used run of the comparison that was read from a run.json. */
export async function loadRunSamples(
  verdict: VerdictFile,
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] },
  /** A text from a run record as the verdict holds it (cleaned of secrets before it was rendered). */
  asInVerdict: (text: string) => string,
): Promise<LoadedSamples> {
  const used = new Set(verdict.runs.used.map((r) => JSON.stringify([r.side, r.cell, r.run, r.source])));
  const budget = { bytes: 0 };
  const samples: LoadedRunSamples[] = [];
  const notes: LoadedSamples["notes"] = [];
  for (const side of ["baseline", "candidate"] as const) {
    for (const record of runs[side]) {
      const cell = asInVerdict(record.cell);
      if (!used.has(JSON.stringify([side, cell, record.run, asInVerdict(record.source)]))) continue;
      if (basename(record.source) !== "run.json") continue;
      const dir = dirname(record.source);
      const requests = await readLimited(join(dir, "requests.jsonl"), budget);
      if (requests === null) continue;
      if ("skipped" in requests) {
        notes.push({
          cell,
          note: `${side} run-${record.run ?? "?"}: ${requests.skipped}; its requests are not drawn.`,
        });
        continue;
      }
      const entry: LoadedRunSamples = {
        side,
        cell: record.cell,
        run: record.run,
        source: record.source,
        ttft: [],
        tpot: [],
        e2el: [],
        itl: [],
        answer_ttft: [],
        answer_itl: [],
        ttftAt: [],
        itlAt: [],
        failedAt: [],
        scrapes: [],
        skippedLines: 0,
      };
      parseRequests(requests.text, entry);
      const scrapes = await readLimited(join(dir, "scrapes.jsonl"), budget);
      if (scrapes !== null && "text" in scrapes) entry.scrapes = scrapeSeries(parseScrapes(scrapes.text));
      else if (scrapes !== null)
        notes.push({
          cell,
          note: `${side} run-${record.run ?? "?"}: ${scrapes.skipped}; its scrapes are not drawn.`,
        });
      if (entry.skippedLines > 0)
        notes.push({
          cell,
          note: `${side} run-${record.run ?? "?"}: ${entry.skippedLines} line(s) of requests.jsonl were not valid records and are not drawn.`,
        });
      samples.push(entry);
    }
  }
  return { samples, notes };
}
