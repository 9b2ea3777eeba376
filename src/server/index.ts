export { cleanupFromState } from "./cleanup.js";

export { ServerStartError } from "./errors.js";

export {
  createServerProvider,
  type ManagedServerProvider,
  providerForConfig,
} from "./provider.js";

export {
  handleInterrupts,
  stopLaunchedServersOnCrash,
} from "./signals.js";

export {
  defaultServerStateFile,
  readServerState,
} from "./state.js";
export { startTelemetry } from "./telemetry.js";
