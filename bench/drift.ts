/**
 * The stored baseline's drift term: the fixed prior (gate.session_drift_sd 0.02, what a PR used when the
 * action passed one baseline session) against the estimate from the base branch's baseline history
 * (src/compare/noise/session-drift.ts), on simulated PRs through the real compare.
 * Usage: npx tsx bench/drift.ts [--reps 600] [--sessions 10]
 *
 * Model per PR: every session (job) has its own level exp(u), u ~ N(0, τ²) with τ = shift sd / √2 (the
 * "shift sd" is the sd of the ln shift between two sessions, the quantity session_drift_sd names); runs in
 * a session vary with sd 0.03 on the log scale; the baseline and each history session hold 10 runs
 * (repeats.baseline), the candidate 10 runs of a new session, times the true change. One cell; the
 * fixtures move every metric of a run together, so the gated family behaves as one test. Prints, per
 * true drift and change: blocks (verdict regression) and inconclusive, prior only vs with history, with
 * Monte-Carlo standard errors, and the drift sd the history gave (median, 10th, 90th percentile).
 */
import { compareRecords, defaultCompareSettings } from "../src/compare/index.js";
import { type RunRecord, runRecordFromRunFile } from "../src/metrics/run-record.js";
import { mulberry32 } from "../src/util/random.js";
import { gaussian, noisyRuns } from "./kit/run-files.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const reps = option("reps", 600);
const sessions = option("sessions", 10);
const runsPerSession = 10;
const runSd = 0.03;

function session(name: string, level: number, seed: number): RunRecord[] {
  return noisyRuns(runsPerSession, { seed, sd: runSd, shift: level }).map((run, i) => ({
    ...runRecordFromRunFile(run, `${name}/chat/run-${i}/run.json`),
    session: name,
  }));
}

const rate = (count: number) => {
  const p = count / reps;
  return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / reps)).toFixed(1)}`;
};

const rows: string[][] = [];
for (const shiftSd of [0.01, 0.02, 0.04]) {
  for (const change of [1, 1.05, 1.1]) {
    const random = mulberry32(Math.round(shiftSd * 1e4) * 31 + Math.round(change * 100));
    const tau = shiftSd / Math.SQRT2;
    const count = { priorBlock: 0, historyBlock: 0, priorInconclusive: 0, historyInconclusive: 0 };
    const used: number[] = [];
    for (let r = 0; r < reps; r++) {
      const level = () => Math.exp(tau * gaussian(random));
      const seed = Math.floor(random() * 2 ** 31);
      const baseline = session("s0", level(), seed);
      const history = Array.from({ length: sessions - 1 }, (_, k) =>
        session(`s${k + 1}`, level(), seed + k + 1),
      ).flat();
      const candidate = session("candidate", level() * change, seed + sessions + 1);
      const settings = defaultCompareSettings();
      const prior = compareRecords({ baseline, candidate, settings, mode: "stored" }).verdict;
      const withHistory = compareRecords({ baseline, candidate, history, settings, mode: "stored" }).verdict;
      if (prior.verdict === "regression") count.priorBlock++;
      if (withHistory.verdict === "regression") count.historyBlock++;
      if (prior.verdict === "inconclusive") count.priorInconclusive++;
      if (withHistory.verdict === "inconclusive") count.historyInconclusive++;
      used.push(withHistory.settings.sessionDriftEstimates.ttft_p95!.sd);
    }
    used.sort((a, b) => a - b);
    const at = (q: number) => used[Math.min(used.length - 1, Math.floor(q * used.length))]!.toFixed(4);
    rows.push([
      shiftSd.toFixed(2),
      `+${Math.round((change - 1) * 100)}%`,
      rate(count.priorBlock),
      rate(count.historyBlock),
      rate(count.priorInconclusive),
      rate(count.historyInconclusive),
      `${at(0.5)} (${at(0.1)}–${at(0.9)})`,
    ]);
  }
}

const header = [
  "true shift sd",
  "true change",
  "blocks, prior 0.02",
  `blocks, ${sessions}-session history`,
  "inconclusive, prior",
  "inconclusive, history",
  "drift sd used (10th–90th)",
];
console.log(
  `stored baseline, 1 cell, ${runsPerSession} runs per session (baseline, history, candidate), run sd ${runSd}, ${reps} PRs per row, tolerance 5%`,
);
console.log(`| ${header.join(" | ")} |`);
console.log(`| ${header.map(() => "---").join(" | ")} |`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
