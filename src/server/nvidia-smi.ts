import { execFileCapture } from "./exec.js";

/**
 * GPU facts from `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` (one line per GPU, fields in the
 * order asked, ", " between them, "[N/A]" or "[Not Supported]" where a value is missing). A runner without
 * nvidia-smi (no GPU) yields null, never an error.
 */
export interface GpuInventory {
  readonly count: number;
  readonly names: string[];
  readonly memoryTotalMiB: number[];
  readonly driverVersion: string | null;
  readonly cudaVersion: string | null;
}

export interface GpuUsage {
  readonly index: number;
  readonly utilizationPercent: number | null;
  readonly memoryUsedMiB: number | null;
  readonly powerW: number | null;
  readonly smClockMHz: number | null;
}

const queryTimeoutMs = 10_000;

export function parseCsvRows(text: string): string[][] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => line.split(",").map((field) => field.trim()));
}

export function parseNumber(field: string | undefined): number | null {
  if (field === undefined || field === "" || field.startsWith("[")) return null;
  const value = Number(field);
  return Number.isFinite(value) ? value : null;
}

function textOrNull(field: string | undefined): string | null {
  return field === undefined || field === "" || field.startsWith("[") ? null : field;
}

export class NvidiaSmi {
  readonly command: string;
  readonly #env: NodeJS.ProcessEnv;

  constructor(command = "nvidia-smi", env: NodeJS.ProcessEnv = process.env) {
    this.command = command;
    this.#env = env;
  }

  async #query(args: string[]): Promise<string | null> {
    const result = await execFileCapture(this.command, args, { env: this.#env, timeoutMs: queryTimeoutMs });
    if (result.spawnError || result.code !== 0) return null;
    return result.stdout;
  }

  async inventory(): Promise<GpuInventory | null> {
    const csv = await this.#query([
      "--query-gpu=index,name,memory.total,driver_version",
      "--format=csv,noheader,nounits",
    ]);
    if (csv === null) return null;
    const rows = parseCsvRows(csv);
    // The CUDA version (the driver's, not the image's) is only in the banner of the plain output.
    const banner = await this.#query([]);
    const cuda = banner?.match(/CUDA Version:\s*([0-9.]+)/)?.[1] ?? null;
    return {
      count: rows.length,
      // A GPU name never contains a comma; everything between index and the two numeric columns is the name.
      names: rows.map((row) => row.slice(1, -2).join(",")),
      memoryTotalMiB: rows.map((row) => parseNumber(row.at(-2)) ?? 0),
      driverVersion: textOrNull(rows[0]?.at(-1)),
      cudaVersion: cuda,
    };
  }

  /**
   * The usage of these GPUs only (a server on some devices of the runner: its memory release and
   * telemetry are its own devices', whatever the servers beside it do).
   */
  only(indices: readonly number[]): NvidiaSmi {
    const view = Object.create(this) as NvidiaSmi;
    view.usage = async () => (await this.usage())?.filter((gpu) => indices.includes(gpu.index)) ?? null;
    return view;
  }

  async usage(): Promise<GpuUsage[] | null> {
    const csv = await this.#query([
      "--query-gpu=index,utilization.gpu,memory.used,power.draw,clocks.sm",
      "--format=csv,noheader,nounits",
    ]);
    if (csv === null) return null;
    return parseCsvRows(csv).map((row) => ({
      index: parseNumber(row[0]) ?? 0,
      utilizationPercent: parseNumber(row[1]),
      memoryUsedMiB: parseNumber(row[2]),
      powerW: parseNumber(row[3]),
      smClockMHz: parseNumber(row[4]),
    }));
  }
}
