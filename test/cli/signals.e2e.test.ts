import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { isGroupAlive, processStats } from "../../src/server/process-group.js";
import { defaultCliCommand } from "../../src/server/sim-command.js";
import { fakeVllmArgv } from "../server/fake-host.js";

const fakeVllm = fakeVllmArgv[1]!;

/** `run` ends within 2 s of its first signal (run.ts, interactiveInterrupts); 1 s of tolerance for a loaded machine. */
const firstSignalLimitMs = 3_000;

// Signals sent to the real CLI (`node --import tsx src/cli.ts`), which launches real simulators: whatever
// happens, no simulator may outlive it. Waits are bounded and generous (a loaded 2-core machine).

const work = mkdtempSync(join(tmpdir(), "vpg-cli-signals-"));
const children: ChildProcess[] = [];
const groups: number[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  // Never leave a simulator behind, even when an assertion failed.
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {}
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let counter = 0;
function longRunConfig(): string {
  const file = join(work, `config-${counter++}.yml`);
  // Enough work that the run is still measuring when the signal comes: 4 long streams in flight at a time.
  writeFileSync(
    file,
    [
      "version: 1",
      "server: { kind: sim, startup_timeout_s: 60 }",
      "model: { name: sim-model }",
      "cells:",
      "  - name: chat",
      "    dataset: { type: synthetic, input_tokens: 16, output_tokens: 400 }",
      "    load: { type: concurrency, concurrency: 4 }",
      "    size: { requests: 2000 }",
      "    warmup: { requests: 0 }",
      "",
    ].join("\n"),
  );
  return file;
}

/** A `command` server that never listens, and ignores SIGTERM unless told (test/fixtures/bin/fake-vllm.mjs). */
function stubbornConfig(ignoreSigterm = true): string {
  const file = join(work, `stubborn-${counter++}.yml`);
  const port = 20_000 + ((process.pid * 7 + counter * 13) % 20_000);
  const argv = [
    process.execPath,
    fakeVllm,
    "--never-listen",
    ...(ignoreSigterm ? ["--ignore-sigterm"] : []),
    "--port",
    String(port),
  ];
  writeFileSync(
    file,
    [
      "version: 1",
      `server: { kind: command, port: ${port}, startup_timeout_s: 600, argv: ${JSON.stringify(argv)} }`,
      "model: { name: sim-model }",
      "cells:",
      "  - name: chat",
      "    dataset: { type: synthetic, input_tokens: 16, output_tokens: 16 }",
      "    load: { type: concurrency, concurrency: 1 }",
      "    size: { requests: 10 }",
      "",
    ].join("\n"),
  );
  return file;
}

interface Cli {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startCli(args: string[]): Cli {
  const child = spawn(defaultCliCommand()[0]!, [...defaultCliCommand().slice(1), ...args], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => stderr, exited };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Process groups led by children of `pid` (the simulators it launched run detached, as group leaders). */
function childGroups(pid: number): number[] {
  return (processStats() ?? []).filter((p) => p.ppid === pid && p.group === p.pid).map((p) => p.pid);
}

/** Waits until the fake server of a run in `out` says it is loading (its signal handlers are installed). */
async function serverLoading(out: string): Promise<void> {
  const log = join(out, "chat", "server-chat.log");
  await until(
    "the server to start loading",
    () => (existsSync(log) && readFileSync(log, "utf8").includes("loading weights") ? true : undefined),
    60_000,
  );
}

async function expectGone(processGroups: readonly number[]): Promise<void> {
  await until(
    "the simulators to be gone",
    () => (processGroups.some(isGroupAlive) ? undefined : true),
    15_000,
  );
}

function requestRecords(dir: string): { errorKind: string | null }[] {
  return readFileSync(join(dir, "requests.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { errorKind: string | null });
}

describe("run under signals", () => {
  it("SIGTERM mid-run: cancels in flight, writes run.json marked interrupted, stops the simulator, exits 143", async () => {
    const out = join(work, "out-term");
    const cli = startCli(["run", "--config", longRunConfig(), "--out", out, "--runs", "3"]);
    await until(
      "the run to start",
      () => (/chat: run-0 \(1 of 3\) against/.test(cli.stderr()) ? true : undefined),
      60_000,
    );
    const sims = await until(
      "the simulator",
      () => {
        const found = childGroups(cli.child.pid!);
        return found.length > 0 ? found : undefined;
      },
      10_000,
    );
    groups.push(...sims);
    // Some requests finished, others in flight.
    const runDir = join(out, "chat", "run-0");
    await until(
      "finished requests",
      () =>
        existsSync(join(runDir, "requests.jsonl")) && requestRecords(runDir).length >= 4 ? true : undefined,
      60_000,
    );
    const signalledAt = performance.now();
    cli.child.kill("SIGTERM");
    const { code } = await cli.exited;
    const stoppedAfterMs = performance.now() - signalledAt;
    expect(code, cli.stderr()).toBe(143);
    // The first signal stops it within 2 s; 1 s more of tolerance for a loaded 2-core machine.
    expect(stoppedAfterMs, cli.stderr()).toBeLessThan(firstSignalLimitMs);
    await expectGone(sims);

    const summary = cli.stderr().trim().split("\n").at(-1)!;
    expect(summary).toMatch(
      /^interrupted by SIGTERM: kept 0 complete run\(s\) and chat\/run-0 interrupted \(\d+ request\(s\) recorded, \d+ cancelled; excluded from comparisons\) in /,
    );
    const file = runFileSchema.parse(JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")));
    expect(file.flags.interrupted).toBe("SIGTERM");
    expect(file.flags.cutShort).toBe(true);
    expect(file.flags.notes[0]).toMatch(/^interrupted by SIGTERM: /);
    // The requests in flight at the signal are recorded, as cancelled; the ones before it as they were.
    const records = requestRecords(runDir);
    expect(records.length).toBe(file.requests.total);
    const cancelled = records.filter((record) => record.errorKind === "aborted").length;
    expect(cancelled).toBeGreaterThanOrEqual(1);
    expect(cancelled).toBeLessThanOrEqual(4);
    expect(file.requests.errorsByKind.aborted).toBe(cancelled);
    expect(runRecordFromRunFile(file, runDir).exclusionReasons).toContain("interrupted by SIGTERM");
    // No later run was started.
    expect(existsSync(join(out, "chat", "run-1"))).toBe(false);
  }, 120_000);

  it("a signal during a server's start-up ends the wait at once and stops the server", async () => {
    const cli = startCli(["run", "--config", stubbornConfig(false), "--out", join(work, "out-starting")]);
    const servers = await until(
      "the server",
      () => {
        const found = childGroups(cli.child.pid!);
        return found.length > 0 ? found : undefined;
      },
      60_000,
    );
    groups.push(...servers);
    // The wait is not silent: within 10 s (and a margin for a loaded machine) it says where it stands.
    await until(
      "a readiness progress line",
      () =>
        /chat: waiting for the server at http:\/\/127\.0\.0\.1:\d+: 10 s since \d\d:\d\d:\d\d UTC, awaiting GET \/health to answer 200; last probe: connection refused by 127\.0\.0\.1:\d+ .*; gives up after 600 s \(server\.startup_timeout_s, from the launch\)/.test(
          cli.stderr(),
        )
          ? true
          : undefined,
      20_000,
    );
    cli.child.kill("SIGTERM");
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(143);
    expect(cli.stderr().trim().split("\n").at(-1)).toMatch(
      /^interrupted by SIGTERM while the server was starting; the runs finished before are kept in .*; the servers it started are stopped$/,
    );
    // It did not need the wind-down limit: the orderly stop did it.
    expect(cli.stderr()).not.toMatch(/not wound down/);
    await expectGone(servers);
  }, 120_000);

  it("a second Ctrl-C exits at once with 130 and still kills the server's process group", async () => {
    // A server that never listens and ignores SIGTERM: the first signal's orderly stop cannot finish.
    const out = join(work, "out-int");
    const cli = startCli(["run", "--config", stubbornConfig(), "--out", out]);
    const servers = await until(
      "the server",
      () => {
        const found = childGroups(cli.child.pid!);
        return found.length > 0 ? found : undefined;
      },
      60_000,
    );
    groups.push(...servers);
    await serverLoading(out);
    cli.child.kill("SIGINT");
    await until(
      "the first signal to be seen",
      () => (/SIGINT: stopping/.test(cli.stderr()) ? true : undefined),
      20_000,
    );
    cli.child.kill("SIGINT");
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(130);
    expect(cli.stderr()).toMatch(/SIGINT again: killed 1 launched server\(s\) and exiting 130/);
    await expectGone(servers);
  }, 120_000);

  it("one signal that cannot wind down in time: the servers are stopped for it and it exits 143", async () => {
    const out = join(work, "out-stuck");
    const cli = startCli(["run", "--config", stubbornConfig(), "--out", out]);
    const servers = await until(
      "the server",
      () => {
        const found = childGroups(cli.child.pid!);
        return found.length > 0 ? found : undefined;
      },
      60_000,
    );
    groups.push(...servers);
    await serverLoading(out);
    const signalledAt = performance.now();
    cli.child.kill("SIGTERM");
    const { code } = await cli.exited;
    const stoppedAfterMs = performance.now() - signalledAt;
    expect(code, cli.stderr()).toBe(143);
    expect(cli.stderr()).toMatch(
      /SIGTERM: not wound down within 1.2 s; stopping 1 launched server\(s\) and exiting 143/,
    );
    // A server that ignores SIGTERM does not hold the first signal's exit past 2 s (+1 s for the load).
    expect(stoppedAfterMs, cli.stderr()).toBeLessThan(firstSignalLimitMs);
    await expectGone(servers);
  }, 120_000);
});

describe("demo under signals", () => {
  it("SIGTERM stops both simulators and exits 143 with what was kept", async () => {
    const out = join(work, "demo");
    const cli = startCli(["demo", "--out", out, "--no-color"]);
    await until(
      "a measured run",
      () => (/: run-0 \(1 of 1\) against http/.test(cli.stderr()) ? true : undefined),
      60_000,
    );
    const sims = await until(
      "both simulators",
      () => {
        const found = childGroups(cli.child.pid!);
        return found.length >= 1 ? found : undefined;
      },
      30_000,
    );
    groups.push(...sims);
    cli.child.kill("SIGTERM");
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(143);
    expect(cli.stderr().trim().split("\n").at(-1)).toMatch(
      /^interrupted by SIGTERM(: kept \d+ run\(s\) under .*| while the server was starting); nothing was compared; the simulators are stopped$/,
    );
    await expectGone(sims);
    expect(existsSync(join(out, "verdict.json"))).toBe(false);
  }, 120_000);
});
