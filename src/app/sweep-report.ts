import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  type CapacityCell,
  capacityObjectivesOf,
  capacityRunsOf,
  intervalLevel,
} from "../compare/capacity/capacity.js";
import { loadCurveOf } from "../compare/capacity/load-curve.js";
import type { CellConfig } from "../config/schema.js";
import { runRecordFromRunFile } from "../metrics/run-record.js";
import type { LoadCurvePicture } from "../report/charts/data.js";
import { formatNumber } from "../report/format.js";
import { renderLoadReport } from "../report/html/load-report.js";
import { chartsDirName } from "../report/html/report-html.js";
import type { Outbound } from "../server/outbound.js";
import { capacityInterval, estimateCapacity } from "../stats/capacity.js";
import { toolVersion } from "../version.js";
import { readCellRunFiles } from "./sweep-curve.js";

/**
 * `run --sweep`'s picture of one side (docs/capacity.md): `DIR/<cell>/report.html` and
 * `DIR/<cell>/report-charts/*.svg` (replaced whole) beside curve.json, drawn from every run of the cell
 * directory with compare's definitions: the curve of the usable runs (compare/capacity/load-curve.ts) and,
 * for a capacity cell, the capacity estimate and its interval as compare computes them for a side
 * (compare/capacity/capacity.ts, stats/capacity.ts). Its files are written through the job's output seam.
 */
export async function writeSweepReport(
  cellDir: string,
  cell: CellConfig,
  confidence: number,
  outbound: Outbound,
): Promise<string> {
  const records = readCellRunFiles(cellDir).map(({ file, path }) => runRecordFromRunFile(file, path));
  const dimension = cell.load.type === "concurrency" ? "concurrency" : "rate";
  const percentile = cell.capacity?.percentile ?? "p95";
  const points = loadCurveOf(cell.name, dimension, percentile, records);
  let capacity: LoadCurvePicture["series"][number]["capacity"] = null;
  let capacityWords: string | null = null;
  if (cell.capacity !== undefined) {
    const capacityCell = cell as CapacityCell;
    const runs = capacityRunsOf(capacityCell, records);
    const objectives = capacityObjectivesOf(capacityCell);
    if (runs.length === 0) capacityWords = "Capacity search: no usable run with a load, so no capacity.";
    else {
      const estimate = estimateCapacity(runs, objectives);
      const level = intervalLevel(confidence);
      const interval = capacityInterval(runs, objectives, { level, seed: 1000 });
      capacity = { load: estimate.capacity, bound: estimate.bound };
      const bound =
        estimate.bound === "above"
          ? "every load measured meets the SLOs: capacity at least "
          : estimate.bound === "below"
            ? "no load measured meets the SLOs: capacity below "
            : "capacity ";
      capacityWords = `Capacity search: ${bound}${formatNumber(estimate.capacity)}${estimate.limiting ? ` (limited by ${estimate.limiting})` : ""}${interval ? `, ${Math.round(level * 100)}% interval ${formatNumber(interval.low)} to ${formatNumber(interval.high)}` : ", no interval (no load measured twice)"}; the dashed line marks it.`;
    }
  }
  const slo = cell.slo ?? {};
  const report = await renderLoadReport({
    picture: {
      cell: cell.name,
      dimension,
      percentile,
      slo: {
        ...(slo.ttft_ms === undefined ? {} : { ttft_ms: slo.ttft_ms }),
        ...(slo.e2el_ms === undefined ? {} : { e2el_ms: slo.e2el_ms }),
      },
      kind: cell.capacity === undefined ? "sweep" : "capacity",
      series: [{ side: "measured", points, capacity }],
    },
    runs: records.length,
    leftOut: records.length - points.reduce((sum, p) => sum + p.runs, 0),
    capacityWords,
    toolVersion,
  });
  await rm(join(cellDir, chartsDirName), { recursive: true, force: true });
  for (const chart of report.charts) {
    const path = join(cellDir, chart.path);
    await mkdir(dirname(path), { recursive: true });
    await outbound.writeFile(path, chart.svg);
  }
  const htmlPath = join(cellDir, "report.html");
  await outbound.writeFile(htmlPath, report.html);
  return htmlPath;
}
