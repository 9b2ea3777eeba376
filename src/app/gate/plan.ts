import { baselineEvents } from "../../github/baseline-discovery.js";
import type { ActionContext } from "../../github/context.js";
import { branchOfRef } from "../../github/context.js";
import type { ActionInputs } from "./inputs.js";

/**
 * What this job does, decided from the mode and the event before anything runs. `auto` records a
 * baseline on the default branch, gates a pull request interleaved (the base commit's config against the
 * PR's, in this job) and anything else against the stored baseline; `cells` makes the job one part of a
 * matrix whose `aggregate` job judges.
 */

type Role = "baseline" | "gate";
type Source = "measure" | "interleaved" | "aggregate";

export interface RunPlan {
  role: Role;
  source: Source;
  /** Measures a subset of cells for an aggregate job; uploads them and judges nothing. */
  partial: boolean;
  /** Branch whose baseline a gate compares against. */
  baseBranch: string | null;
  /** The PR's base commit: preferred baseline, and the base config for interleaved runs. */
  baseSha: string | null;
  /**
   * Interleaved runs that may fall back to the stored baseline when there is no base side to run (the
   * config is new in this PR, or the base commit's config cannot be read): `auto` on a pull request.
   * An explicit `mode: interleaved` fails instead.
   */
  fallbackToStored: boolean;
}

class PlanError extends Error {
  override readonly name = "PlanError";
}

export function planRun(inputs: ActionInputs, context: ActionContext): RunPlan {
  const pr = context.pullRequest;
  const branch = branchOfRef(context.ref);
  const onDefaultBranch =
    !pr && baselineEvents.includes(context.eventName) && branch !== null && branch === context.defaultBranch;
  const eventRole: Role = onDefaultBranch ? "baseline" : "gate";
  const baseBranch = pr?.baseRef ?? context.defaultBranch;
  const baseSha = pr?.baseSha ?? null;
  const partial = inputs.cells !== null && inputs.mode !== "aggregate";
  const common = { baseBranch, baseSha, fallbackToStored: false };
  switch (inputs.mode) {
    case "auto":
      // A pull request runs interleaved: with the server kept up between runs it reaches the power the
      // stored mode cannot (bench:gate, docs/compare.md). A local baseline-path asks for a stored baseline.
      if (pr && inputs.baselinePath === null)
        return { role: "gate", source: "interleaved", partial, ...common, fallbackToStored: true };
      return { role: eventRole, source: "measure", partial, ...common };
    case "gate":
      return { role: "gate", source: "measure", partial, ...common };
    case "baseline":
      return { role: "baseline", source: "measure", partial, ...common };
    case "calibrate":
      // A/A calibration (calibrate-job.ts): measures, records no baseline and judges nothing.
      return { role: eventRole, source: "measure", partial: false, ...common };
    case "aggregate":
      return { role: eventRole, source: "aggregate", partial: false, ...common };
    case "interleaved":
      if (!pr) {
        throw new PlanError(
          `mode interleaved needs a pull_request event (it runs the base commit's config against the PR's); this is a ${context.eventName} event`,
        );
      }
      return { role: "gate", source: "interleaved", partial, ...common };
  }
}
