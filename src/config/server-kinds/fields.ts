import { z } from "zod";
import { envVarName, positiveNumber } from "../fields.js";
import { atMost, configLimits } from "../limits.js";

/** The fields every server kind's schema branch shares (each kind's module in this folder uses them). */
export const startupTimeout = positiveNumber("a positive number of seconds")
  .max(configLimits.seconds, atMost(configLimits.seconds, "seconds"))
  .default(900)
  .describe("Seconds to wait for /health and /v1/models to answer before giving up.");

export const serverLifecycle = z
  .enum(["per-side", "per-cell", "per-run"])
  .default("per-side")
  .describe(
    "per-side: one server for every cell of a side (one start per block of runs), its prefix cache reset between cells; a server that cannot reset it gets a new server per cell, and the runs say so (the cheapest). per-cell: one server for all runs of a cell. per-run: a fresh server for every run (captures start-to-start variance, costs a start-up per run).",
  );

/** How many cells and runs one server start serves (docs/run.md, Server lifecycle). */
export type ServerLifecycle = z.output<typeof serverLifecycle>;

export const apiKeyEnv = envVarName()
  .optional()
  .describe("Name of the environment variable holding the API key sent as a Bearer token.");
