import type { z } from "zod";
import { choice, type KindProblem } from "./fields.js";
import { commandKind } from "./server-kinds/command.js";
import { dockerKind } from "./server-kinds/docker.js";
import { externalKind } from "./server-kinds/external.js";
import type { ServerLifecycle } from "./server-kinds/fields.js";
import type { ServerKindModule } from "./server-kinds/kind.js";
import { simKind } from "./server-kinds/sim.js";

/**
 * The server kinds, one module each in server-kinds/ (its schema branch and its facts), registered here
 * once. Everything else is derived from this list: `serverSchema` and its messages, `serverKinds` (init's
 * `--server`, presets, the fingerprint's `server.kind`), and the kinds with a trait (`launchedServerKinds`).
 * How a kind is launched is its entry in server/kinds/, keyed by these kinds, so the compiler demands one
 * for a new kind; `docs/server.md` has its row.
 */
const serverKindModules = [dockerKind, commandKind, externalKind, simKind] as const;

type Modules = typeof serverKindModules;
type SchemasOf<T extends readonly { schema: unknown }[]> = { -readonly [I in keyof T]: T[I]["schema"] };

export const serverSchema = choice(
  "kind",
  serverKindModules.map((module) => module.schema) as unknown as SchemasOf<Modules>,
).describe(
  "How to get a server: start a pinned container, run a command, use a running endpoint, or the built-in simulator.",
);

export type { ServerLifecycle };
/** A server section as parsed (schema.ts's `ServerConfig` is this type, the config's `server`). */
export type ServerConfig = z.output<typeof serverSchema>;
export type ServerKind = ServerConfig["kind"];
export type ServerConfigOf<K extends ServerKind> = Extract<ServerConfig, { kind: K }>;

/** A kind's module, typed for its configs. */
type ServerKindFacts<K extends ServerKind> = ServerKindModule<z.ZodType<ServerConfigOf<K>>>;

type ModuleOf<K extends ServerKind> = Extract<Modules[number], { schema: z.ZodType<{ kind: K }> }>;

/** Each kind's module by its name. */
export const serverKindFacts = Object.fromEntries(
  serverKindModules.map((module) => [module.schema.shape.kind.value, module]),
) as unknown as { readonly [K in ServerKind]: ModuleOf<K> };

/** The module of a config's kind, typed for that config. */
function factsOf<K extends ServerKind>(server: ServerConfigOf<K>): ServerKindFacts<K> {
  return serverKindFacts[server.kind] as unknown as ServerKindFacts<K>;
}

/** Every server kind, in the order of the registry (init's --server choices, presets, tests). */
export const serverKinds = serverKindModules.map((module) => module.schema.shape.kind.value) as [
  ServerKind,
  ...ServerKind[],
];

/** The kinds whose launcher leaves a process or container running (the `launchesProcess` trait). */
export type LaunchedServerKind = Extract<
  Modules[number],
  { launchesProcess: true }
>["schema"]["shape"]["kind"]["value"];

/** See LaunchedServerKind: the kinds the server state file records. */
export const launchedServerKinds = serverKinds.filter((kind) => serverKindFacts[kind].launchesProcess) as [
  LaunchedServerKind,
  ...LaunchedServerKind[],
];

/** Whether each run gets its own server or a cell's runs share one. */
export function serverLifecycle(config: { server: ServerConfig }): ServerLifecycle {
  return factsOf(config.server).lifecycle(config.server);
}

/** Why both sides of one job would measure one server (the kind's `sidesShareOneServer`), or null. */
export function sidesShareOneServer(server: ServerConfig): string | null {
  return factsOf(server).sidesShareOneServer;
}

/** One line for the server section of `validate` (pass the template view: it is printed). */
export function describeServer(server: ServerConfig): string {
  return factsOf(server).describe(server);
}

/** The warnings `validate` prints for the server (`shown`: the template view, for the text). */
export function serverWarnings(server: ServerConfig, shown: ServerConfig): string[] {
  return factsOf(server).warnings?.(server, shown) ?? [];
}

/** What runner.devices cannot do with this server (each kind says; most have nothing to say). */
export function serverDeviceProblems(server: ServerConfig, devices: readonly string[]): KindProblem[] {
  return factsOf(server).deviceProblems?.(server, devices) ?? [];
}
