import {
  changePointPolicies,
  type HistoryInputs,
  historyInputDefaults,
  historyStores,
  mainRegressedPolicies,
} from "../app/gate/history-inputs.js";
import { defaultHistoryPath } from "../github/history-store.js";

/**
 * Reads and checks the history-* inputs (action.yml, docs/history.md). `fail` is the caller's input error
 * (inputs.ts passes ActionInputError), so this file does not import inputs.ts back.
 */
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
    changePointIssue: text("history-change-point-issue")
      ? whole("history-change-point-issue", 1, 2_147_483_647, 0)
      : historyInputDefaults.changePointIssue,
  };
}
