import { spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanupRecordedServers, compareWithStatistics } from "../../src/action/default-dependencies.js";
import { loadConfig } from "../../src/config/load.js";
import { noSecrets } from "../job-outbound.js";
import { testConfig, writeRun } from "./fixtures.js";

/** The real wiring, on the parts that need no server: compare on written runs, and post-step cleanup. */
describe("createDefaultDependencies' adapters", () => {
  it("compare reads both sides, honours fail-on and writes verdict.json", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wired-compare-"));
    const configPath = join(dir, "vllm-perf-gate.yml");
    await writeFile(configPath, testConfig(1));
    for (const run of [0, 1, 2, 3, 4]) {
      await writeRun(join(dir, "baseline"), "chat", run, 1);
      await writeRun(join(dir, "candidate"), "chat", run, 1.5);
    }
    const request = {
      baselineDir: join(dir, "baseline"),
      historyDirs: [],
      candidateDir: join(dir, "candidate"),
      configPath,
      config: await loadConfig(configPath),
      mode: "stored" as const,
      baselineInfo: { commit: "a".repeat(40), runId: "7" },
      outDir: join(dir, "compare"),
      workingDirectory: dir,
      outbound: noSecrets,
    };
    const gated = await compareWithStatistics({ ...request, failOn: null });
    expect(gated.verdict).toBe("regression");
    expect(gated.exitCode).toBe(1);
    expect(gated.report).toContain("regression");
    const written = JSON.parse(await readFile(join(dir, "compare", "verdict.json"), "utf8"));
    expect(written.baselineInfo).toMatchObject({ commit: "a".repeat(40), runId: "7" });
    const tolerated = await compareWithStatistics({ ...request, failOn: "never" });
    expect(tolerated).toMatchObject({ verdict: "regression", exitCode: 0 });
  });

  it("compare estimates the session drift from the baseline history it is given", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wired-history-"));
    const configPath = join(dir, "vllm-perf-gate.yml");
    await writeFile(configPath, testConfig(1));
    // The baseline at the PR's base and four earlier sessions whose levels moved by a few percent.
    const levels = [1, 1.04, 0.96, 1.02, 0.98];
    for (const [session, level] of levels.entries()) {
      for (const run of [0, 1, 2, 3, 4]) await writeRun(join(dir, `session-${session}`), "chat", run, level);
    }
    // A new session: not byte-identical to the baseline's runs (that would be one run on both sides).
    for (const run of [0, 1, 2, 3, 4]) await writeRun(join(dir, "candidate"), "chat", run, 1.002);
    const request = {
      baselineDir: join(dir, "session-0"),
      candidateDir: join(dir, "candidate"),
      configPath,
      config: await loadConfig(configPath),
      mode: "stored" as const,
      baselineInfo: null,
      outDir: join(dir, "compare"),
      workingDirectory: dir,
      outbound: noSecrets,
      failOn: null,
    };
    await compareWithStatistics({
      ...request,
      historyDirs: levels.slice(1).map((_, i) => join(dir, `session-${i + 1}`)),
    });
    const withHistory = JSON.parse(await readFile(join(dir, "compare", "verdict.json"), "utf8"));
    expect(withHistory.settings.sessionDriftEstimates.ttft_p95).toMatchObject({
      source: "history",
      sessions: 5,
    });
    await compareWithStatistics({ ...request, historyDirs: [] });
    const alone = JSON.parse(await readFile(join(dir, "compare", "verdict.json"), "utf8"));
    expect(alone.settings.sessionDriftEstimates.ttft_p95).toMatchObject({ source: "prior", sessions: 0 });
    expect(alone.settings.sessionDriftEstimates.ttft_p95.sd).toBeCloseTo(0.02, 10);
  });

  it("cleanup stops a server a cancelled main step left running", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wired-cleanup-"));
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      detached: true,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const stateFile = join(dir, "servers.json");
    await writeFile(
      stateFile,
      JSON.stringify({
        schemaVersion: 1,
        servers: [
          {
            id: "s1",
            kind: "sim",
            startedAt: new Date().toISOString(),
            cell: "chat",
            run: null,
            pid: child.pid,
            processGroup: child.pid,
          },
        ],
      }),
    );
    await cleanupRecordedServers(stateFile);
    await exited;
    expect(JSON.parse(await readFile(stateFile, "utf8")).servers).toEqual([]);
  }, 30_000);
});
