import type { z } from "zod";
import type { KindProblem } from "../fields.js";
import type { ServerLifecycle } from "./fields.js";

/**
 * One server kind as the config layer knows it, declared in one module of this folder: its schema branch
 * (a strict object whose `kind` is a literal) and its facts, typed for that branch. The registry
 * (`serverKindModules` in ../server-kinds.ts) lists the modules; how a kind is launched is its entry in
 * server/kinds/, which the compiler demands for every kind of the registry.
 */
export interface ServerKindModule<Schema extends z.ZodType<{ kind: string }>> {
  readonly schema: Schema;
  /**
   * The trait of a kind whose launcher leaves a process or container running until teardown: the state
   * file records such servers for the post step and the leftover sweep (server/state.ts).
   */
  readonly launchesProcess: boolean;
  /**
   * Why the base and candidate sides of one job cannot each have a server of their own (an interleaved
   * comparison then falls back to the stored baseline), or null when each side starts its own.
   */
  readonly sidesShareOneServer: string | null;
  /** GPU seconds one start costs when `cost.server_start_s` is not set (a vLLM start loads weights). */
  readonly defaultStartSeconds: number;
  /** The lifecycle of a server of this kind: its `lifecycle` field, or fixed (a server we do not start is shared). */
  lifecycle(server: z.output<Schema>): ServerLifecycle;
  /** The `server:` line of `validate` (given the template view: it is printed). */
  describe(server: z.output<Schema>): string;
  /** Warnings `validate` prints for this server (the values, and the template view for the text). */
  warnings?(server: z.output<Schema>, shown: z.output<Schema>): string[];
  /** What runner.devices (one server per device at once) cannot do with this server. */
  deviceProblems?(server: z.output<Schema>, devices: readonly string[]): KindProblem[];
  /** `init`'s preset for this kind: its `server:` block (YAML, its comments say why) and the model it serves. */
  readonly preset: { readonly server: string; readonly modelName: string };
}
