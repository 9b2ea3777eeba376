import type { Config, ServerConfig, ServerLifecycle } from "./schema.js";

/**
 * What the config layer knows of each server kind, declared once: the kinds are the branches of
 * `serverSchema` (schema.ts), and every kind has one entry here and one in `server/kinds.ts` (how it is
 * launched and fingerprinted). Adding a kind is its schema branch plus those two entries; the compiler
 * lists them (`satisfies`), and every `switch` over `server.kind` is exhaustive.
 */
export type ServerKind = ServerConfig["kind"];
export type ServerConfigOf<K extends ServerKind> = Extract<ServerConfig, { kind: K }>;

export interface ServerKindFacts<K extends ServerKind> {
  /** GPU seconds one start costs when `cost.server_start_s` is not set (a vLLM start loads weights). */
  readonly defaultStartSeconds: number;
  /** The lifecycle of a server of this kind: its `lifecycle` field, or fixed (a server we do not start is shared). */
  lifecycle(server: ServerConfigOf<K>): ServerLifecycle;
  /** The `server:` line of `validate` (given the template view: it is printed). */
  describe(server: ServerConfigOf<K>): string;
}

export const serverKindFacts = {
  docker: {
    defaultStartSeconds: 180,
    lifecycle: (server) => server.lifecycle,
    describe: (server) => `docker ${server.image}${server.args.length ? ` ${server.args.join(" ")}` : ""}`,
  },
  command: {
    defaultStartSeconds: 180,
    lifecycle: (server) => server.lifecycle,
    describe: (server) => `command ${server.argv.join(" ")}`,
  },
  external: {
    // Someone else started it: no start is ours to pay for, and one server serves every run (its cache is
    // not reset between cells: it is a deployment, not ours to reset beyond the fresh policy's).
    defaultStartSeconds: 0,
    lifecycle: () => "per-cell",
    describe: (server) => `external ${server.base_url}`,
  },
  sim: {
    defaultStartSeconds: 1,
    lifecycle: (server) => server.lifecycle,
    describe: (server) =>
      `simulator, profile ${server.profile}${
        Object.keys(server.set).length
          ? ` (${Object.entries(server.set)
              .map(([key, value]) => `${key}=${value}`)
              .join(", ")})`
          : ""
      }`,
  },
} as const satisfies { readonly [K in ServerKind]: ServerKindFacts<K> };

/** The entry of a config's kind, typed for that config. */
export function factsOf<K extends ServerKind>(server: ServerConfigOf<K>): ServerKindFacts<K> {
  return serverKindFacts[server.kind] as unknown as ServerKindFacts<K>;
}

/** Every server kind, in the order of the entries (init's --server choices, presets, tests). */
export const serverKinds = Object.keys(serverKindFacts) as [ServerKind, ...ServerKind[]];

/** Whether each run gets its own server or a cell's runs share one. */
export function serverLifecycle(config: Pick<Config, "server">): ServerLifecycle {
  return factsOf(config.server).lifecycle(config.server);
}

/** One line for the server section of `validate` (pass the template view: it is printed). */
export function describeServer(server: ServerConfig): string {
  return factsOf(server).describe(server);
}
