import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrationFileSchema } from "../../src/compare/calibration/calibration.js";
import { parseHistory } from "../../src/compare/history/history.js";
import { createFileMeasure, testConfig } from "./fixtures.js";
import { type Job, runJob as runJobIn } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * Main's history through the whole action, against the loopback GitHub API (contents and git data API
 * for the history branch, the results service for artifacts) with the real compare: baseline jobs on
 * main append their sessions, the change point is reported once, and a pull request that only
 * reproduces main's regression is told so; a corrupted history is refused and the gate says what it did.
 * Main's sessions are recorded once per file, on first use; each case checks out the history it needs
 * (the branch's head at that point), so it passes alone and in any order.
 */

const job = useRealActionJob("history-e2e-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const historyBranch = "perf-history";
const historyPath = "vllm-perf-gate/history.jsonl";

const deps = () =>
  job.dependencies({
    measure: createFileMeasure([]),
    cleanupServers: async () => {},
    now: () => new Date(Date.UTC(2026, 10, 1) + fake.runs.length * 3_600_000),
  });

const runJob = (request: Job) => runJobIn(job.environment(), request, deps());

const push = (runId: number, commit: string, slowdown: number): Job => ({
  runId,
  event: "push",
  payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: commit, before: sha("0") }),
  sha: commit,
  ref: "refs/heads/main",
  config: testConfig(slowdown),
});

const pr = (runId: number, slowdown: number, inputs: Record<string, string> = {}): Job => ({
  runId,
  ...pullRequestEvent(fake, { number: 41, baseSha: sha("6"), headSha: sha("f"), mergeSha: sha("e") }),
  config: testConfig(slowdown),
  inputs: { mode: "gate", comment: "false", ...inputs },
});

/** A calibrate job on main (workflow_dispatch): 3 A/A runs per side. */
const calibrate = (runId: number, slowdown: number): Job => ({
  runId,
  event: "workflow_dispatch",
  payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("c"), before: sha("b") }),
  sha: sha("c"),
  ref: "refs/heads/main",
  config: testConfig(slowdown, { min: 2, max: 3, block: 1 }),
  inputs: { mode: "calibrate", "max-runs": "3" },
});

/** Main's history at one point: the history branch's head then, and the results of the jobs that made it. */
interface MainHistory {
  readonly head: string;
  readonly jobs: readonly Awaited<ReturnType<typeof runJob>>[];
}

async function recordOnMain(jobs: readonly Job[], after?: MainHistory): Promise<MainHistory> {
  if (after) fake.branches.set(historyBranch, after.head);
  const results = [];
  for (const request of jobs) results.push(await runJob(request));
  return { head: fake.branches.get(historyBranch)!, jobs: results };
}

let oldLevel: Promise<MainHistory> | undefined;
let stepped: Promise<MainHistory> | undefined;

/** Six baseline sessions at main's old level: runs 500-505 on commits 1-6. */
const mainAtOldLevel = () =>
  (oldLevel ??= recordOnMain(
    ["1", "2", "3", "4", "5", "6"].map((digit, i) => push(500 + i, sha(digit), 1.0)),
  ));

/**
 * Then six after main's +12% step (runs 510-515 on commits 7-c), with change points failing the job and
 * reported on the fake repository's tracking issue #77 (input history-change-point-issue).
 */
const mainAfterItsStep = () =>
  (stepped ??= mainAtOldLevel().then((old) =>
    recordOnMain(
      ["7", "8", "9", "a", "b", "c"].map((digit, i) => ({
        ...push(510 + i, sha(digit), 1.12),
        inputs: { "history-change-points": "fail", "history-change-point-issue": "77" },
      })),
      old,
    ),
  ));

/** Puts the history branch back where `history` left it, whatever cases before appended or broke. */
async function checkOut(history: Promise<MainHistory>): Promise<MainHistory> {
  const state = await history;
  fake.branches.set(historyBranch, state.head);
  return state;
}

/** Appends a record without its session to main's history. */
function corruptHistory(): void {
  const text = fake.branchFile(historyBranch, historyPath) ?? "";
  fake.commitFile(historyBranch, historyPath, `${text}{"schemaVersion": 1, "cell": "chat"}\n`);
}

const calibrationOf = async (reportPath: string) =>
  calibrationFileSchema.parse(
    JSON.parse(await readFile(join(dirname(reportPath), "calibration.json"), "utf8")),
  );

describe("main's history in the action", () => {
  it("baseline jobs on main append their sessions to the history branch", async () => {
    for (const { result, summary } of (await checkOut(mainAtOldLevel())).jobs) {
      expect(result.verdict).toBe("baseline-recorded");
      expect(summary).toContain("### Main's history");
      expect(summary).toMatch(
        /Recorded \d+ record\(s\) of this session in `branch perf-history \(vllm-perf-gate\/history\.jsonl\)`/,
      );
    }
    const records = parseHistory(fake.branchFile(historyBranch, historyPath) ?? "", "test");
    expect(new Set(records.map((r) => r.session.id))).toEqual(
      new Set([500, 501, 502, 503, 504, 505].map((id) => `${id}-1`)),
    );
    expect(new Set(records.map((r) => r.cell))).toEqual(new Set(["batch", "chat"]));
    expect(records.find((r) => r.metric === "ttft_p95")?.values).toHaveLength(10);
  });

  it("reports main's step once, in the summary of the session that first shows it (and fails it with history-change-points: fail)", async () => {
    const shown: boolean[] = [];
    const failed: boolean[] = [];
    for (const { result, summary } of (await checkOut(mainAfterItsStep())).jobs) {
      shown.push(summary.includes("Change points in main's series, first seen with this session"));
      failed.push(result.failed);
      if (summary.includes("Change points")) {
        expect(summary).toMatch(/\| chat \| TTFT p95 \| \+12\.0% \(worse\)/);
        expect(summary).toContain("`666666666666` … `777777777777`");
        expect(result.failureMessage).toMatch(
          /main regressed \(history-change-points: fail\): .*ttft_p95 of chat stepped 12\.0%/,
        );
      }
      // The baseline is recorded either way.
      expect(result.verdict).toBe("baseline-recorded");
    }
    expect(shown.filter(Boolean)).toHaveLength(1);
    expect(failed).toEqual(shown);
    // history-change-point-issue names the repository's tracking issue (number 77 in this fake repository):
    // one comment per cell for the step (its change points listed), from the session that first saw it.
    const posted = fake.commentsOn(77);
    expect(posted.map((c) => c.body.split("\n")[0])).toEqual([
      "### vllm-perf-gate: main stepped in batch",
      "### vllm-perf-gate: main stepped in chat",
    ]);
    const chat = posted.filter((c) => c.body.includes("main stepped in chat"));
    expect(chat[0]!.body).toMatch(/- TTFT p95: \+12\.0% \(/);
    expect(chat[0]!.body).toContain("Between `666666666666` and `777777777777`, worse:");
    expect(chat[0]!.body).toMatch(/\/actions\/runs\/51\d\)/);
  });

  it("a baseline job on another branch writes nothing to main's history", async () => {
    await checkOut(mainAtOldLevel());
    const before = fake.branchFile(historyBranch, historyPath);
    const { result } = await runJob({
      ...push(590, sha("d"), 1.5),
      ref: "refs/heads/feature",
      inputs: { mode: "baseline" },
    });
    expect(result.verdict).toBe("baseline-recorded");
    expect(fake.branchFile(historyBranch, historyPath)).toBe(before);
  });

  it("a PR that only reproduces main's regression is told so and not blocked", async () => {
    await checkOut(mainAfterItsStep());
    const { result, outputs, summary } = await runJob(pr(600, 1.12));
    expect(outputs.verdict).toBe("regression");
    expect(result.failed).toBe(false);
    expect(summary).toContain("**Main already regressed.**");
    expect(summary).toMatch(/main itself moved \+12\.0%/);
    expect(summary).toContain("between `666666666666` and `777777777777`");
    expect(summary).toContain("not blocked (history-main-regressed: pass)");
    expect(summary).toMatch(/Used \d+ earlier session\(s\) of main from `branch perf-history/);
  });

  it("blocks it all the same with history-main-regressed: block, and blames a PR that goes beyond main", async () => {
    await checkOut(mainAfterItsStep());
    const blocked = await runJob(pr(601, 1.12, { "history-main-regressed": "block" }));
    expect(blocked.result.failed).toBe(true);
    expect(blocked.summary).toContain("it is still blocked (history-main-regressed: block)");
    const worse = await runJob(pr(602, 1.35));
    expect(worse.result.failed).toBe(true);
    expect(worse.summary).not.toContain("Main already regressed");
  });

  it("mode calibrate reads main's history for the between-session drift, main's step taken out", async () => {
    // 12 sessions on the branch: 6 at main's old level, 6 after its +12% step; the A/A runs measure now.
    // One more session recorded under other conditions (another fingerprint), 3x slower: left out.
    await checkOut(mainAfterItsStep());
    const text = fake.branchFile(historyBranch, historyPath) ?? "";
    const last = JSON.parse(text.trimEnd().split("\n").at(-1)!);
    const foreign = {
      ...last,
      session: { ...last.session, id: "699-1", runId: 699, recordedAt: "2026-11-30T00:00:00.000Z" },
      values: last.values.map((v: number | null) => (v === null ? null : v * 3)),
      fingerprint: "0123456789abcdef",
    };
    fake.commitFile(historyBranch, historyPath, `${text}${JSON.stringify(foreign)}\n`);
    const { result, summary } = await runJob(calibrate(700, 1.12));
    expect(result.verdict).toBe("calibrated");
    expect(summary).toContain(
      "Between-session drift from 12 session(s) of main's history (`branch perf-history (vllm-perf-gate/history.jsonl)`), 1 left out (recorded under other conditions).",
    );
    const file = await calibrationOf(result.reportPath!);
    const ttft = file.cells.find((c) => c.cell === "chat")!.metrics.find((m) => m.metric === "ttft_p95")!;
    // The history's 12 sessions and the A/A runs' one. Main's step is taken out before the drift is
    // estimated: unaligned, a +12% step across these sessions would read as a drift sd of about 6%.
    expect(ttft.drift?.sessions).toBe(13);
    expect(ttft.drift!.sd).toBeLessThan(0.01);
    expect(summary).toMatch(/drift \d+\.\d+% over 13 sessions/);
  });

  it("mode calibrate with history-sessions uses only the newest sessions", async () => {
    await checkOut(mainAfterItsStep());
    const { result } = await runJob({
      ...calibrate(701, 1.12),
      inputs: { ...calibrate(701, 1.12).inputs, "history-sessions": "4" },
    });
    const file = await calibrationOf(result.reportPath!);
    expect(file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!.drift?.sessions).toBe(5);
  });

  it("refuses a corrupted history with a clear message; the gate falls back and says so", async () => {
    await checkOut(mainAfterItsStep());
    corruptHistory();
    const { result, summary } = await runJob(pr(603, 1.12));
    expect(summary).toContain("was refused");
    expect(summary).toMatch(/line \d+\\?: field session/);
    expect(summary).toContain("The gate fell back to the baseline artifacts' sessions");
    // Without the history nothing says the regression is main's, and the artifact sessions (which span
    // main's step, unaligned) widen the drift: the gate cannot pass it.
    expect(summary).not.toContain("Main already regressed");
    expect(["regression", "inconclusive"]).toContain(result.verdict);
  });

  it("mode calibrate refuses the corrupted history the same way and records no drift; the calibration is still written", async () => {
    await checkOut(mainAfterItsStep());
    corruptHistory();
    const { result, summary } = await runJob(calibrate(702, 1.12));
    expect(result.failed).toBe(false);
    expect(result.verdict).toBe("calibrated");
    expect(summary).toMatch(
      /Main's history \(`branch perf-history \(vllm-perf-gate\/history\.jsonl\)`\) was refused: .*line \d+\\?: field session/,
    );
    expect(summary).toContain("No between-session drift recorded.");
    const file = await calibrationOf(result.reportPath!);
    expect(file.cells.flatMap((c) => c.metrics).every((m) => m.drift === null)).toBe(true);
  });
});

describe("main's history as the start prior of an interleaved pull request", () => {
  it("baseline jobs record two starts or more, and an interleaved PR's checks carry the start level they show", async () => {
    // Main's baseline jobs, each measuring its 10 runs in steps of their own server start; every other
    // start runs 0.4% slow (the runner's start level), which the history sees within each session.
    const measured = (request: Job) =>
      runJobIn(
        job.environment(),
        request,
        job.dependencies({
          measure: createFileMeasure([], {
            recordStarts: true,
            startEffect: (start) => (start % 2 === 0 ? 1 : 1.004),
          }),
          cleanupServers: async () => {},
          now: () => new Date(Date.UTC(2026, 10, 1) + fake.runs.length * 3_600_000),
        }),
      );
    fake.branches.delete(historyBranch);
    for (const [i, digit] of ["1", "2", "3"].entries()) {
      const { result } = await measured(push(800 + i, sha(digit), 1.0));
      expect(result.verdict).toBe("baseline-recorded");
    }
    const records = parseHistory(fake.branchFile(historyBranch, historyPath) ?? "", "history");
    const chat = records.find((r) => r.cell === "chat" && r.metric === "ttft_p95")!;
    expect(new Set(chat.serverStarts!.runs).size).toBeGreaterThanOrEqual(2);
    // A PR gated interleaved (the base commit has the config): the base side measured in this job, a
    // side's two consecutive runs on one start (repeats.block 1: the simulator's cheap start would
    // otherwise give every run its own, whose spread holds the start level without a prior).
    const base = sha("3");
    const shared = testConfig(1.0, { min: 3, max: 6, block: 1 });
    fake.files.set(`vllm-perf-gate.yml@${base}`, shared);
    const { result } = await measured({
      runId: 810,
      ...pullRequestEvent(fake, { number: 42, baseSha: base, headSha: sha("d"), mergeSha: sha("e") }),
      config: shared,
      inputs: { comment: "false" },
    });
    const verdict = JSON.parse(
      await readFile(join(result.resultsDir, "..", "compare", "verdict.json"), "utf8"),
    ) as {
      mode: string;
      comparisons: { cell: string; metric: string; noise?: { priorSource: string | null } }[];
    };
    expect(verdict.mode).toBe("interleaved");
    const ttft = verdict.comparisons.find((c) => c.cell === "chat" && c.metric === "ttft_p95")!;
    // main's measured start level, joined by the published one at its weight_starts df.
    expect(ttft.noise?.priorSource).toMatch(/^history: 3 sessions, \d+ starts \+ gate\.noise_prior\.ttft$/);
  }, 120_000);
});
