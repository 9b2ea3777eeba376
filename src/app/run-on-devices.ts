import { selectCells } from "../config/select-cells.js";
import { deviceBlockLine } from "../report/status.js";
import type { ServerDevice, ServerProvider } from "../server/types.js";
import { type DeviceBlock, measureOnDevices } from "./measure-on-devices.js";
import { type RunCellsOptions, type RunCellsResult, type RunOutput, runCells } from "./run-cells.js";

/**
 * The CLI's `run` on the runner's devices (config runner.devices; docs/run.md, "On several devices"):
 * the same plan and execution the action's measuring goes through (./measure-on-devices.ts), with one
 * side: the cells balanced over the devices, each device's cells one after the other on its own server,
 * the devices at once. Without runner.devices the plan is one block of every cell on one server, as
 * `run` always measured.
 */

/** A stoppable provider (its servers stopped when its block ends). */
export interface BlockProvider extends ServerProvider {
  stopAll(): Promise<void>;
}

export interface RunOnDevicesOptions extends Omit<RunCellsOptions, "provider" | "firstRun" | "runsByCell"> {
  /** Servers for one block: on `device` (absent: the GPUs the server config names). */
  providerFor: (device: ServerDevice | undefined) => BlockProvider;
}

export async function runCellsOnDevices(options: RunOnDevicesOptions): Promise<RunCellsResult> {
  const { config, providerFor, ...rest } = options;
  const selected = selectCells(config, options.cells).map((cell) => cell.name);
  const runs = options.runs ?? config.repeats.min;
  // `run --append`: each cell's runs numbered on after the ones already in its directory.
  const offset = (cell: string) => options.firstRunByCell?.[cell] ?? 0;
  const outputs: RunOutput[] = [];
  const measureBlock = async (block: DeviceBlock): Promise<void> => {
    const cells = block.cells ?? selected;
    const firstRunByCell = Object.fromEntries(
      cells.map((cell) => [cell, offset(cell) + (block.firstRunByCell?.[cell] ?? block.firstRun)]),
    );
    if (block.device)
      options.progress?.message(deviceBlockLine(block.device.spec, cells, block.runsByCell ?? block.runs));
    const provider = providerFor(block.device);
    try {
      const result = await runCells({
        ...rest,
        config,
        provider,
        cells,
        runs: block.runs,
        firstRunByCell,
        ...(block.runsByCell ? { runsByCell: block.runsByCell } : {}),
      });
      outputs.push(...result.runs);
    } finally {
      await provider.stopAll();
    }
  };
  await measureOnDevices({
    sides: [{ side: "run", config }],
    step: { firstRun: 0, runs, cells: options.cells ? selected : null },
    config,
    // A side measured alone keeps one start per block unless the config says `fresh` (a user's, or a
    // budget plan's): `auto` weighs the starts of two alternating sides, and restarting a server the
    // user asked to measure once is not what `run` was asked for (docs/run.md).
    aloneStartsEachGroup: config.repeats.block === "fresh",
    measureBlock: (_side, block) => measureBlock(block),
    stopped: () => options.signal?.aborted === true,
  });
  return { runs: outputs };
}
