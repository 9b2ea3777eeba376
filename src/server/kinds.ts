import type { ServerConfig } from "../config/schema.js";
import type { ServerConfigOf, ServerKind } from "../config/server-kinds.js";
import { commandEntry } from "./kinds/command.js";
import { dockerEntry } from "./kinds/docker.js";
import type { ServerKindEntry } from "./kinds/entry.js";
import { externalEntry } from "./kinds/external.js";
import { simEntry } from "./kinds/sim.js";

export type { ServerKindEntry } from "./kinds/entry.js";
export { externalEndpoint } from "./kinds/external.js";

/**
 * The server-kind registry: each kind's behaviour, one module per kind in kinds/ (how it is launched or
 * reached, what the fingerprint records of it, its GPU, port and passed variables). Keyed by the kinds of
 * config/server-kinds.ts, so a new kind there fails to compile until its entry is here. `--base-url` is an
 * `external` server given on the command line (base-url.ts), so it is reached and fingerprinted by that entry.
 */
const serverKindRegistry: { readonly [K in ServerKind]: ServerKindEntry<K> } = {
  docker: dockerEntry,
  command: commandEntry,
  external: externalEntry,
  sim: simEntry,
};

/** The registry entry of a config's kind, typed for that config. */
export function kindEntry<K extends ServerKind>(server: ServerConfigOf<K>): ServerKindEntry<K> {
  return serverKindRegistry[server.kind] as unknown as ServerKindEntry<K>;
}

/** See ServerKindEntry.settings. */
export function serverSettings(server: ServerConfig): Record<string, unknown> {
  return kindEntry(server).settings(server);
}
