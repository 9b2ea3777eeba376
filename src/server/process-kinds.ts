import type { ServerDevice } from "./types.js";

// What the kinds that start a process of their own (kinds/command.ts, kinds/sim.ts) hand it.

/** vLLM registers POST /reset_prefix_cache only in dev mode; a server shared by a cell's runs needs it. */
export function devModeEnv(devMode: boolean): NodeJS.ProcessEnv {
  return devMode ? { VLLM_SERVER_DEV_MODE: "1" } : {};
}

/**
 * The devices of one server (runner.devices): the GPUs it sees (CUDA_VISIBLE_DEVICES, as CUDA programs
 * read it) and, in the command's arguments, `{device}` and `{port}` (each device's server on its own port).
 */
export function deviceEnv(device: ServerDevice | undefined): NodeJS.ProcessEnv {
  return device ? { CUDA_VISIBLE_DEVICES: device.spec } : {};
}

export function withDevice(
  argv: readonly string[],
  device: ServerDevice | undefined,
  port: number,
): string[] {
  return argv.map((arg) => arg.replaceAll("{port}", String(port)).replaceAll("{device}", device?.spec ?? ""));
}
