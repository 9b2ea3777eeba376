import type { GateConfig } from "../../config/schema.js";
import type { OverallVerdict } from "./verdict-schema.js";

/** The job's exit code for a verdict under gate.fail_on: 1 blocks the pull request, 0 lets it pass. */
export function exitCodeFor(verdict: OverallVerdict, failOn: GateConfig["fail_on"]): 0 | 1 {
  if (failOn === "never") return 0;
  if (verdict === "pass") return 0;
  if (verdict === "inconclusive") return failOn === "inconclusive" ? 1 : 0;
  return 1;
}
