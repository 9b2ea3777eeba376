import { InputError } from "../util/errors.js";
import type { CellConfig, Config } from "./schema.js";

/** The cells named (`--cells`, the action's `cells` input), in the order named; all of them when none is. */
export function selectCells(config: Config, names: readonly string[] | undefined): CellConfig[] {
  if (!names || names.length === 0) return config.cells;
  const known = config.cells.map((cell) => cell.name);
  return names.map((name) => {
    const cell = config.cells.find((candidate) => candidate.name === name);
    if (!cell) throw new InputError(`--cells: no cell named "${name}"; the config has: ${known.join(", ")}`);
    return cell;
  });
}
