import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { measureRequestedRuns } from "../../src/app/measure-requested.js";
import { loadConfig } from "../../src/config/load.js";
import { noSecrets } from "../job-outbound.js";

const work = mkdtempSync(join(tmpdir(), "vpg-measure-readiness-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the action's measure step", () => {
  it("says in the job's log where a slow server start stands, at least every 10 s", async () => {
    // The simulator answers /health with 503 for its first 11 s (--fault slow-start:11).
    const configPath = join(work, "gate.yml");
    writeFileSync(
      configPath,
      [
        "version: 1",
        'server: { kind: sim, startup_timeout_s: 60, args: ["--fault", "slow-start:11"] }',
        "model: { name: sim-model }",
        "cells:",
        "  - name: chat",
        "    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }",
        "    load: { type: concurrency, concurrency: 1 }",
        "    size: { requests: 2 }",
        "    warmup: { requests: 0 }",
        "",
      ].join("\n"),
    );
    const lines: string[] = [];
    await measureRequestedRuns(
      {
        configPath,
        config: await loadConfig(configPath, { env: {}, cwd: work }),
        outbound: noSecrets,
        resultsDir: join(work, "results"),
        cells: null,
        firstRun: 0,
        runs: 1,
        side: null,
        serverStateFile: join(work, "state.json"),
        workingDirectory: work,
      },
      { env: { ...process.env }, progress: { update() {}, message: (line) => lines.push(line) }, warn() {} },
    );
    expect(lines.join("\n")).toMatch(
      /^chat: waiting for the server at http:\/\/127\.0\.0\.1:\d+: 10 s since \d\d:\d\d:\d\d UTC, awaiting GET \/health to answer 200; last probe: \/health answered HTTP 503; gives up after 60 s \(server\.startup_timeout_s, from the launch\)$/m,
    );
  }, 90_000);
});
