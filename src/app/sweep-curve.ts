import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { type RunFile, runFileSchema } from "../metrics/run-schema.js";
import type { Outbound } from "../server/outbound.js";

/**
 * `DIR/<cell>/curve.json` (docs/capacity.md): the load curve of a sweep or capacity search, one row per
 * load measured, each figure the mean over that load's runs (usable or not: the flags say which were
 * client-bound or cut short), so the knee can be read and plotted without opening every run.json.
 */
const curveFileSchemaVersion = 1;

const value = z.number().nullable();
const percentiles = z.object({ p50: value, p95: value, p99: value });

export const curveFileSchema = z.object({
  schemaVersion: z.literal(curveFileSchemaVersion),
  cell: z.string(),
  dimension: z.enum(["rate", "concurrency"]),
  points: z.array(
    z.object({
      load: z.number(),
      runs: z.array(z.number().int()).describe("Run indices (run-<k>) at this load."),
      offeredRate: value.describe("Requests/s asked for (rate loads)."),
      achievedRate: z.number().describe("Requests/s sent."),
      concurrencyMean: z.number().describe("Requests in flight on average (effective concurrency)."),
      completedPerSecond: z.number(),
      goodput: value.describe("Requests/s meeting the cell's slo; null without one."),
      outputTokensPerSecond: z.number(),
      ttftMs: percentiles,
      tpotMs: percentiles,
      itlMs: percentiles,
      e2elMs: percentiles,
      queueP95Ms: value.describe("Client-side wait for a concurrency slot."),
      preemptions: value,
      kvCacheUsageMax: value,
      errorRate: z.number().describe("Failed / total requests."),
      flaggedRuns: z
        .number()
        .int()
        .describe("Runs at this load that were client-bound, cut short or unusable."),
    }),
  ),
});

type CurveFile = z.output<typeof curveFileSchema>;

const meanOf = (values: readonly (number | null)[]): number | null => {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return present.length === 0 ? null : present.reduce((sum, v) => sum + v, 0) / present.length;
};

/** The curve of one cell's runs (their load from run.json), rows ascending by load. */
function curveOf(cell: string, runs: readonly RunFile[]): CurveFile {
  const dimension = runs.some((run) => run.load.type === "concurrency") ? "concurrency" : "rate";
  const byLoad = new Map<number, RunFile[]>();
  for (const run of runs) {
    const load = dimension === "concurrency" ? run.load.targetConcurrency : run.load.targetRate;
    if (load === null) continue;
    byLoad.set(load, [...(byLoad.get(load) ?? []), run]);
  }
  const points = [...byLoad.entries()]
    .sort(([a], [b]) => a - b)
    .map(([load, files]) => {
      const m = (pick: (run: RunFile) => number | null) => meanOf(files.map(pick));
      const phase = (name: "ttft" | "tpot" | "itl" | "e2el") => ({
        p50: m((run) => run.latency[name].p50),
        p95: m((run) => run.latency[name].p95),
        p99: m((run) => run.latency[name].p99),
      });
      return {
        load,
        runs: files.map((run) => run.run),
        offeredRate: m((run) => run.load.targetRate),
        achievedRate: m((run) => run.load.achievedRate) ?? 0,
        concurrencyMean: m((run) => run.load.achievedConcurrencyMean) ?? 0,
        completedPerSecond: m((run) => run.throughput.request) ?? 0,
        goodput: m((run) => run.throughput.goodput),
        outputTokensPerSecond: m((run) => run.throughput.output) ?? 0,
        ttftMs: phase("ttft"),
        tpotMs: phase("tpot"),
        itlMs: phase("itl"),
        e2elMs: phase("e2el"),
        queueP95Ms: m((run) => run.latency.queue.p95),
        preemptions: m((run) => run.server?.preemptions ?? null),
        kvCacheUsageMax: m((run) => run.server?.kv_cache_usage_max ?? null),
        errorRate: m((run) => (run.requests.total > 0 ? run.requests.failed / run.requests.total : 0)) ?? 0,
        flaggedRuns: files.filter(
          (run) =>
            run.flags.clientBound ||
            run.flags.serverStarved === true ||
            run.flags.cutShort ||
            run.flags.serverCrashed ||
            (run.flags.unusableReasons ?? []).length > 0,
        ).length,
      };
    });
  return curveFileSchema.parse({ schemaVersion: curveFileSchemaVersion, cell, dimension, points });
}

/** Every readable run-<k>/run.json of a cell directory, in directory order. */
export function readCellRunFiles(cellDir: string): { file: RunFile; path: string }[] {
  return readdirSync(cellDir)
    .filter((name) => /^run-\d+$/.test(name))
    .flatMap((name) => {
      const path = join(cellDir, name, "run.json");
      try {
        return [{ file: runFileSchema.parse(JSON.parse(readFileSync(path, "utf8"))), path }];
      } catch {
        return []; // A run without a readable run.json (cut off before writing it) has no point.
      }
    });
}

/**
 * Writes DIR/<cell>/curve.json from every run-<k>/run.json of the cell directory (runs added with
 * --append included); returns its path.
 */
export function writeCurveOfDir(cellDir: string, cell: string, outbound: Outbound): string {
  const runs = readCellRunFiles(cellDir).map((run) => run.file);
  const path = join(cellDir, "curve.json");
  outbound.writeFileSync(path, `${JSON.stringify(curveOf(cell, runs), null, 2)}\n`);
  return path;
}
