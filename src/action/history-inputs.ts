import { defaultHistoryBranch, defaultHistoryPath } from "../github/history-store.js";

/**
 * The history-* inputs of the action (action.yml, docs/history.md). `fail` is the caller's input error
 * (inputs.ts passes ActionInputError), so this file does not import inputs.ts back.
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
  /** Sessions the change-point test looks at. */
  window: number;
  mainRegressed: (typeof mainRegressedPolicies)[number];
  /** A new worsening change point on main: reported in the summary, or also a failed baseline step. */
  changePoints: (typeof changePointPolicies)[number];
}

export const historyInputDefaults: HistoryInputs = {
  store: "branch",
  branch: defaultHistoryBranch,
  path: defaultHistoryPath,
  sessions: 20,
  window: 40,
  mainRegressed: "pass",
  changePoints: "report",
};

/** The history-* inputs, with messages naming the input and what it accepts. */
export function parseHistoryInputs(
  read: (name: string) => string,
  fail: (message: string) => never,
): HistoryInputs {
  const text = (name: string) => read(name).trim();
  const choice = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = text(name) || fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    fail(`input ${name}: expected one of ${allowed.join(" | ")}, got "${value}"`);
  };
  const whole = (name: string, min: number, max: number, fallback: number) => {
    const value = text(name);
    if (!value) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      fail(`input ${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
    return Number(value);
  };
  const branch = text("history-branch") || historyInputDefaults.branch;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/.test(branch) || branch.includes(".."))
    fail(`input history-branch: expected a branch name such as perf-history, got "${branch}"`);
  const path = text("history-path") || historyInputDefaults.path;
  if (!/^[A-Za-z0-9._-][A-Za-z0-9._/-]{0,199}$/.test(path) || path.split("/").includes(".."))
    fail(`input history-path: expected a relative file path such as ${defaultHistoryPath}, got "${path}"`);
  return {
    store: choice("history", historyStores, historyInputDefaults.store),
    branch,
    path,
    sessions: whole("history-sessions", 2, 200, historyInputDefaults.sessions),
    window: whole("history-window", 8, 200, historyInputDefaults.window),
    mainRegressed: choice(
      "history-main-regressed",
      mainRegressedPolicies,
      historyInputDefaults.mainRegressed,
    ),
    changePoints: choice("history-change-points", changePointPolicies, historyInputDefaults.changePoints),
  };
}
