import { type TemplateAt, templateView } from "./interpolate.js";
import type { CellConfig, Config, LengthConfig, LoadConfig } from "./schema.js";

/**
 * A normalised, human-readable view of a validated config, with a rough GPU-time estimate. Pure: the
 * caller decides where it is printed. Values that came from `${VAR}` are shown as their template.
 */
export interface CellSummary {
  name: string;
  endpoint: string;
  dataset: string;
  load: string;
  size: string;
  prefix: string;
  warmup: string;
  /** Expected measured seconds of one run (from the schedule; closed-loop estimated). */
  estimatedSecondsPerRun: number;
}

export interface ConfigSummary {
  server: string;
  model: string;
  cells: CellSummary[];
  runs: { min: number; max: number };
  gate: string;
  warnings: string[];
  /** GPU hours for both sides at min runs and at max runs (stored baseline: candidate side only). */
  gpuHours: { candidateAtMin: number; candidateAtMax: number };
  costUsd?: { atMin: number; atMax: number };
}

/** Assumed per-stream decode speed for closed-loop estimates; the estimate says so. */
const assumedSecondsPerOutputToken = 0.03;
const assumedServerStartSeconds: Record<string, number> = { docker: 180, command: 120, external: 0, sim: 1 };

export function lengthMean(length: LengthConfig): number {
  if (typeof length === "number") return length;
  switch (length.distribution) {
    case "fixed":
      return length.value;
    case "uniform":
      return (length.min + length.max) / 2;
    case "normal":
      return length.mean;
    case "lognormal":
      return length.median * Math.exp((length.sigma * length.sigma) / 2);
  }
}

export function describeLength(length: LengthConfig): string {
  // A template (a value from `${VAR}` in the printed view) is shown as written.
  if (typeof length !== "object") return String(length);
  switch (length.distribution) {
    case "fixed":
      return String(length.value);
    case "uniform":
      return `${length.min}-${length.max}`;
    case "normal":
      return `normal(${length.mean}, sd ${length.sd})`;
    case "lognormal":
      return `lognormal(median ${length.median}, sigma ${length.sigma})`;
  }
}

function describeDataset(cell: CellConfig): string {
  const dataset = cell.dataset;
  switch (dataset.type) {
    case "synthetic":
      return `synthetic in ${describeLength(dataset.input_tokens)} / out ${describeLength(dataset.output_tokens)}`;
    case "sharegpt":
      return `ShareGPT ${dataset.path}`;
    case "jsonl":
      return `JSONL ${dataset.path}`;
    case "shared_prefix":
      return `${dataset.num_prefixes} prefixes x ${dataset.prefix_tokens} + ${describeLength(dataset.suffix_tokens)} / out ${describeLength(dataset.output_tokens)}`;
    case "long_document":
      return `${dataset.num_documents} doc x ${dataset.document_tokens} + q ${describeLength(dataset.question_tokens)} / out ${describeLength(dataset.output_tokens)}`;
  }
}

function outputTokensMean(cell: CellConfig): number {
  const dataset = cell.dataset;
  if ("output_tokens" in dataset && dataset.output_tokens !== undefined)
    return lengthMean(dataset.output_tokens);
  return 256;
}

export function describeLoad(load: LoadConfig): string {
  switch (load.type) {
    case "concurrency":
      return `concurrency ${load.concurrency}`;
    case "rate":
      return `${load.rate} req/s${load.burstiness === 1 ? " Poisson" : ` burstiness ${load.burstiness}`}${load.max_concurrency ? `, max ${load.max_concurrency} in flight` : ""}`;
    case "stages":
      return `stages ${load.stages.map((stage) => (stage.rate !== undefined ? `${stage.rate}/s` : `c${stage.concurrency}`) + ` ${stage.duration_s}s`).join(" -> ")}`;
  }
}

function estimateSeconds(cell: CellConfig): number {
  if ("duration_s" in cell.size) return cell.size.duration_s;
  const requests = cell.size.requests;
  const requestSeconds = outputTokensMean(cell) * assumedSecondsPerOutputToken;
  switch (cell.load.type) {
    case "rate":
      return requests / cell.load.rate + requestSeconds;
    case "concurrency":
      return (requests / cell.load.concurrency) * requestSeconds;
    case "stages":
      return cell.load.stages.reduce((total, stage) => total + stage.duration_s, 0);
  }
}

function describeWarmup(cell: CellConfig): string {
  return "requests" in cell.warmup ? `${cell.warmup.requests} req` : `${cell.warmup.duration_s} s`;
}

export function summarizeConfig(config: Config, templates: readonly TemplateAt[] = []): ConfigSummary {
  // Text is built from the view that holds templates where values came from `${VAR}` (they may be
  // secrets); estimates and checks use the values.
  const shown = templateView(config, templates);
  const warnings: string[] = [];
  const server = config.server;
  const serverText = describeServer(shown.server);
  if (server.kind === "docker" && !/@sha256:[0-9a-f]{64}$/.test(server.image)) {
    warnings.push(
      `server.image is pinned by tag only (${(shown.server as typeof server).image}): a re-pushed tag changes the server silently; pin it by digest (image@sha256:...)`,
    );
  }
  if (!config.model.revision)
    warnings.push("model.revision is not set: the model can change under the same name; pin a commit");
  if (config.repeats.min < 3)
    warnings.push(
      `repeats.min is ${config.repeats.min}: fewer than 3 runs per side can rarely support a verdict`,
    );

  const cells = config.cells.map((cell, index): CellSummary => {
    const text = shown.cells[index]!;
    const size = "requests" in text.size ? `${text.size.requests} req` : `${text.size.duration_s} s`;
    if ("requests" in cell.size && cell.size.requests < config.gate.min_requests.p95) {
      const gatedPercentiles = config.gate.metrics.filter((metric) => metric.endsWith("_p95"));
      if (gatedPercentiles.length > 0) {
        warnings.push(
          `cells "${text.name}": ${(text.size as { requests: number }).requests} requests per run is below gate.min_requests.p95 (${config.gate.min_requests.p95}); ${gatedPercentiles.join(", ")} will be advisory only`,
        );
      }
    }
    return {
      name: text.name,
      endpoint: text.endpoint,
      dataset: describeDataset(text),
      load: describeLoad(text.load),
      size,
      prefix: text.prefix,
      warmup: describeWarmup(text),
      estimatedSecondsPerRun: estimateSeconds(cell),
    };
  });

  const startSeconds = assumedServerStartSeconds[server.kind] ?? 0;
  const lifecycle = "lifecycle" in server ? server.lifecycle : "per-cell";
  const secondsFor = (runs: number) =>
    cells.reduce(
      (total, cell) =>
        total + runs * cell.estimatedSecondsPerRun + (lifecycle === "per-run" ? runs : 1) * startSeconds,
      0,
    );
  const gpuHours = {
    candidateAtMin: secondsFor(config.repeats.min) / 3600,
    candidateAtMax: secondsFor(config.repeats.max) / 3600,
  };
  const price = config.cost.gpu_hourly_usd;
  return {
    server: serverText,
    model: `${shown.model.name}${shown.model.revision ? ` @ ${shown.model.revision}` : ""}`,
    cells,
    runs: { min: config.repeats.min, max: config.repeats.max },
    gate: `${shown.gate.metrics.join(", ")}; tolerance ${typeof shown.gate.tolerance === "number" ? `${(shown.gate.tolerance * 100).toFixed(1)}%` : shown.gate.tolerance}, confidence ${shown.gate.confidence}, fail on ${shown.gate.fail_on}`,
    warnings,
    gpuHours,
    ...(price !== undefined
      ? { costUsd: { atMin: gpuHours.candidateAtMin * price, atMax: gpuHours.candidateAtMax * price } }
      : {}),
  };
}

/** One line for the server section (of the template view: it is printed). */
function describeServer(server: Config["server"]): string {
  switch (server.kind) {
    case "docker":
      return `docker ${server.image}${server.args.length ? ` ${server.args.join(" ")}` : ""}`;
    case "command":
      return `command ${server.argv.join(" ")}`;
    case "external":
      return `external ${server.base_url}`;
    case "sim":
      return `simulator, profile ${server.profile}${
        Object.keys(server.set).length
          ? ` (${Object.entries(server.set)
              .map(([key, value]) => `${key}=${value}`)
              .join(", ")})`
          : ""
      }`;
  }
}

function formatHours(hours: number): string {
  return hours < 1 ? `${Math.round(hours * 60)} min` : `${hours.toFixed(1)} h`;
}

export function renderSummary(file: string, summary: ConfigSummary): string {
  const header = ["cell", "endpoint", "dataset", "load", "per run", "warm-up", "prefix"];
  const rows = summary.cells.map((cell) => [
    cell.name,
    cell.endpoint,
    cell.dataset,
    cell.load,
    cell.size,
    cell.warmup,
    cell.prefix,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (row: string[]) =>
    row
      .map((value, column) => value.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  const out = [
    `${file}: valid`,
    `server: ${summary.server}`,
    `model:  ${summary.model}`,
    `${summary.cells.length} cell${summary.cells.length === 1 ? "" : "s"}:`,
    `  ${line(header)}`,
    ...rows.map((row) => `  ${line(row)}`),
    `runs per side: ${summary.runs.min} to ${summary.runs.max} (more only while the verdict is inconclusive)`,
    `gated: ${summary.gate}`,
    `estimated GPU time per side: ${formatHours(summary.gpuHours.candidateAtMin)} at ${summary.runs.min} runs, ${formatHours(summary.gpuHours.candidateAtMax)} at ${summary.runs.max} runs` +
      (summary.costUsd
        ? ` (~$${summary.costUsd.atMin.toFixed(2)} to $${summary.costUsd.atMax.toFixed(2)})`
        : "") +
      ` (rough: schedules as declared, closed-loop cells at ${assumedSecondsPerOutputToken * 1000} ms per output token, plus server starts)`,
  ];
  for (const warning of summary.warnings) out.push(`warning: ${warning}`);
  return `${out.join("\n")}\n`;
}
