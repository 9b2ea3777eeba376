import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCells } from "../../../src/app/run-cells.js";
import { runFileSchema } from "../../../src/metrics/run-schema.js";
import { providerForConfig } from "../../../src/server/provider.js";
import { noSecrets } from "../../job-outbound.js";
import { freePort } from "../docker-helpers.js";
import { dockerTry, labelledContainers, runSuite, standInConfig, useStandIn } from "./daemon.js";

const standIn = useStandIn();

const runFile = (run: number) =>
  runFileSchema.parse(
    JSON.parse(readFileSync(join(standIn.dir, "out", "c", `run-${run}`, "run.json"), "utf8")),
  );

describe.skipIf(!runSuite)("docker kind on a real daemon: a container dying mid-run", () => {
  it("records SERVER CRASHED with the exit code and log tail, and the next run gets a new container", async () => {
    const config = standInConfig(
      standIn.image,
      { port: await freePort(), lifecycle: "per-cell" },
      { size: { requests: 60 }, load: { type: "concurrency", concurrency: 2 } },
    );
    const provider = providerForConfig(config, {
      outbound: noSecrets,
      nvidiaSmiCommand: null,
      pollIntervalMs: 100,
    });
    let killed = false;
    const lines: string[] = [];
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: join(standIn.dir, "out"),
      baseDir: standIn.dir,
      runs: 3,
      calibrate: false,
      progress: {
        update: (event) => {
          if (!killed && event.run === 0 && event.phase === "measure" && event.done >= 5) {
            killed = true;
            // SIGKILL from outside, as an OOM killer or a crashing engine would end it.
            const [container] = labelledContainers();
            expect(dockerTry(["kill", container!.name]).code).toBe(0);
          }
        },
        message: (line) => lines.push(line),
      },
    });
    expect(killed).toBe(true);
    expect(result.runs).toHaveLength(3);
    const crashed = runFile(0);
    expect(crashed.flags.serverCrashed).toBe(true);
    expect(crashed.flags.notes.join("\n")).toMatch(
      /server exited during the run: container \S+ exited with code 137/,
    );
    // The log tail says what the server printed last (here the simulator's start-up lines).
    expect(crashed.flags.notes.join("\n")).toMatch(/last log lines: .*Application startup complete/);
    expect(lines.some((line) => /run-0: .*SERVER CRASHED/.test(line))).toBe(true);
    for (const run of [1, 2]) {
      const file = runFile(run);
      expect(file.flags.serverCrashed).toBe(false);
      expect(file.requests.completed).toBe(60);
    }
    // Run 0's container, then one new one for runs 1 and 2 (per-cell: they share it).
    const log = readFileSync(join(standIn.dir, "out", "c", "server-c.log"), "utf8");
    expect(log.match(/container \S+ started \(id/g)).toHaveLength(2);
    expect(labelledContainers()).toEqual([]);
  }, 90_000);
});
