import { defaultHistoryBranch, defaultHistoryPath } from "../../github/history-store.js";

/**
 * The history-* inputs of the action (action.yml, docs/history.md), as the gate use case sees them;
 * src/action/history-inputs.ts reads and checks them.
 */

export const historyStores = ["branch", "artifact", "off"] as const;
export const mainRegressedPolicies = ["pass", "block"] as const;
export const changePointPolicies = ["report", "fail"] as const;

export interface HistoryInputs {
  store: (typeof historyStores)[number];
  branch: string;
  path: string;
  /** Sessions of the history a gate uses (the last N with the baseline's fingerprint). */
  sessions: number;
  /** Sessions the change-point test looks at (60: `npm run bench:history`, docs/history.md). */
  window: number;
  mainRegressed: (typeof mainRegressedPolicies)[number];
  /** A new worsening change point on main: reported in the summary, or also a failed baseline step. */
  changePoints: (typeof changePointPolicies)[number];
  /** An issue that gets one comment per new worsening change point on main; null: none. */
  changePointIssue: number | null;
}

export const historyInputDefaults: HistoryInputs = {
  store: "branch",
  branch: defaultHistoryBranch,
  path: defaultHistoryPath,
  sessions: 20,
  window: 60,
  mainRegressed: "pass",
  changePoints: "report",
  changePointIssue: null,
};
