import { outputTokensMean } from "./dataset-kinds.js";
import { type CellConfig, type Config, isSessionDataset } from "./schema.js";
import { serverStartSeconds, sessionEstimate } from "./summary.js";

/**
 * What `validate` says a capacity search or a sweep will cost before it starts (docs/capacity.md): per cell
 * with `capacity` or `sweep`, the loads, the most runs per side, and the GPU-minutes of those runs plus one
 * server start (the server is kept across loads). A run's length is its requests at the load measured
 * (the geometric middle of the range for a search, each load for a sweep) plus the output time a request
 * takes, as validate's other estimates assume; for a session dataset the load counts sessions and a
 * session takes its turns' answers plus its think and tool times (summary.ts `sessionEstimate`).
 */
const assumedSecondsPerOutputToken = 0.03;

/** A request's answer time at the assumed speed: its kind's mean answer length. */
function outputSeconds(cell: CellConfig): number {
  return outputTokensMean(cell.dataset, null) * assumedSecondsPerOutputToken;
}

function runSeconds(cell: CellConfig, load: number): number {
  if ("duration_s" in cell.size) return cell.size.duration_s;
  const requests = cell.size.requests;
  const each = sessionEstimate(cell)?.seconds ?? outputSeconds(cell);
  return cell.load.type === "concurrency"
    ? (requests / Math.max(1, Math.round(load))) * each
    : requests / load + each;
}

function sweepLoadList(sweep: NonNullable<CellConfig["sweep"]>): number[] {
  if ("loads" in sweep) return [...new Set(sweep.loads)];
  return Array.from(
    { length: sweep.count },
    (_, i) => sweep.from * (sweep.to / sweep.from) ** (i / (sweep.count - 1)),
  );
}

const unitOf = (cell: CellConfig) => {
  const sessions = isSessionDataset(cell.dataset);
  if (cell.load.type === "concurrency") return sessions ? "sessions in flight" : "in flight";
  return sessions ? "sessions/s" : "req/s";
};
const round1 = (minutes: number) => (minutes < 10 ? minutes.toFixed(1) : Math.round(minutes).toString());

/**
 * The most runs per side a capacity cell spends (docs/capacity.md): `capacity.max_runs`, by default twice
 * repeats.max, never fewer than repeats.max (the search's own budget, its first look).
 */
export function capacityMaxRuns(
  repeatsMax: number,
  cell: { capacity: { max_runs?: number | undefined } },
): number {
  return Math.max(repeatsMax, cell.capacity.max_runs ?? 2 * repeatsMax);
}

export function describeCapacityCost(config: Config): string[] {
  const startMinutes = serverStartSeconds(config) / 60;
  const price = config.cost.gpu_hourly_usd;
  const usd = (minutes: number) =>
    price === undefined ? "" : `, about $${((minutes / 60) * price).toFixed(2)}`;
  const lines: string[] = [];
  for (const cell of config.cells) {
    if (cell.capacity) {
      const { min, max } = cell.capacity.range;
      const runs = config.repeats.max;
      const perRun = runSeconds(cell, Math.sqrt(min * max)) / 60;
      const minutes = runs * perRun + startMinutes;
      const most = capacityMaxRuns(runs, cell as { capacity: NonNullable<CellConfig["capacity"]> });
      const extra =
        most > runs
          ? `; an undecided capacity verdict adds runs up to ${most} per side (capacity.max_runs), about ${round1(most * perRun + startMinutes)} GPU-minutes per side at most, and a stored baseline is recorded with ${most}`
          : "";
      lines.push(
        `capacity search ${cell.name} (run --sweep): ${min} to ${max} ${unitOf(cell)}, ${cell.capacity.initial_loads} loads first, then 4 runs per round until the interval is within ${Math.round(cell.capacity.precision * 100)}%; at most ${runs} runs per side (repeats.max), about ${round1(minutes)} GPU-minutes per side${usd(minutes)}, twice that for an A/B comparison${extra}`,
      );
    } else if (cell.sweep) {
      const loads = sweepLoadList(cell.sweep);
      const seconds = loads.reduce((sum, load) => sum + cell.sweep!.runs * runSeconds(cell, load), 0);
      const minutes = seconds / 60 + startMinutes;
      lines.push(
        `load sweep ${cell.name} (run --sweep): ${loads.length} loads x ${cell.sweep.runs} runs = ${loads.length * cell.sweep.runs} runs per side, about ${round1(minutes)} GPU-minutes per side${usd(minutes)}`,
      );
    }
  }
  return lines;
}
