import { type CellConfig, type Config, isFileBacked } from "../config/schema.js";
import { type DatasetFile, readDatasetFile } from "../workload/dataset-file.js";

/** The config of one cell with what the runner derives from the whole config. */
export interface CellContext {
  config: Config;
  cell: CellConfig;
  /** Workload seed: the cell's own or the top-level one. */
  seed: number;
  /** Dataset file, read once per cell (file-backed dataset kinds: isFileBacked). */
  file: DatasetFile | undefined;
}

export async function prepareCell(config: Config, cell: CellConfig, baseDir: string): Promise<CellContext> {
  const index = config.cells.indexOf(cell);
  const field = `cells[${index}].dataset`;
  const dataset = cell.dataset;
  const seed = cell.seed ?? config.seed;
  const file = isFileBacked(dataset) ? await readDatasetFile({ dataset, baseDir, field, seed }) : undefined;
  return { config, cell, seed, file };
}
