export { systemClock, type TimerClock } from "../util/clock.js";
export { baseUrlProvider } from "./base-url.js";
export { type CleanupOutcome, cleanupFromState } from "./cleanup.js";
export { type Diagnosis, diagnoseLog, type LikelyCause } from "./diagnose.js";
export { type ServerFailureStage, ServerStartError } from "./errors.js";
export {
  buildFingerprint,
  canonicalJson,
  type Fingerprint,
  type FingerprintFacts,
  fingerprintSchema,
  fingerprintSchemaVersion,
  hashConfig,
} from "./fingerprint.js";
export {
  externalEndpoint,
  type KindLaunch,
  kindEntry,
  type ServerKindEntry,
  serverKindRegistry,
  serverSettings,
} from "./kinds.js";
export { type GpuInventory, type GpuUsage, NvidiaSmi } from "./nvidia-smi.js";
export { isPortFree } from "./port.js";
export {
  cacheConfigFromMetrics,
  type PrometheusSample,
  parsePrometheusText,
} from "./prometheus-text.js";
export {
  createServerProvider,
  type ManagedServerProvider,
  type ManagedServerSession,
  providerForConfig,
  type ServerProviderOptions,
} from "./provider.js";
export { createRedactor, type Redactor, redactionMark } from "./redact.js";
export {
  handleInterrupts,
  type Interruption,
  killLaunchedServersNow,
  launchedServers,
  signalExitCode,
  stopLaunchedServers,
  stopLaunchedServersOnCrash,
} from "./signals.js";
export { defaultCliCommand, findPackageRoot } from "./sim-command.js";
export {
  defaultServerStateFile,
  type LiveServer,
  liveServerSchema,
  readServerState,
  type ServerState,
  serverStateSchema,
  serverStateSchemaVersion,
} from "./state.js";
export {
  type GpuSample,
  type MetricsSample,
  runTelemetry,
  startTelemetry,
  summariseTelemetry,
  type TelemetryOptions,
  type TelemetryRecord,
  type TelemetrySampler,
  type TelemetrySummary,
  telemetryRecordSchema,
  telemetrySchemaVersion,
} from "./telemetry.js";
export type { ServerEndpoint, ServerProvider, ServerSession, ServerStartContext } from "./types.js";
