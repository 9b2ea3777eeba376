import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCells } from "../../src/app/run-cells.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import type { ServerProvider, ServerSession } from "../../src/server/types.js";
import { noSecrets } from "../job-outbound.js";
import { freePort } from "../server/docker-helpers.js";
import { type FakeServer, startFakeServer } from "./helpers/fake-openai-server.js";
import { testConfig } from "./helpers/run-config.js";

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a server whose exit is known only after its port refuses", () => {
  it("waits for the exit, records the crash, and the next run gets a new server", async () => {
    server = await startFakeServer({ behaviour: () => ({ kind: "ok", tokens: 2 }) });
    dir = mkdtempSync(join(tmpdir(), "vpg-crash-"));
    const closedPort = await freePort();
    let starts = 0;
    // The first server is already dead: its port refuses at once, and its exit (as `docker wait`
    // reports a killed container's) is known 2 s later (priming the connections takes part of that). The second one serves.
    const provider: ServerProvider = {
      lifecycle: "per-cell",
      start: async () => {
        const first = starts++ === 0;
        const baseUrl = first ? `http://127.0.0.1:${closedPort}` : server!.baseUrl;
        const session: ServerSession = {
          endpoint: { baseUrl, metricsUrl: `${baseUrl}/metrics` },
          start: { id: `start-${starts}`, startedAt: new Date().toISOString() },
          fingerprint: async () => ({}),
          exited: first
            ? new Promise((resolve) =>
                setTimeout(resolve, 2_000, { reason: "container x exited with code 137" }),
              )
            : new Promise(() => {}),
          stop: async () => {},
        };
        return session;
      },
    };
    const config = testConfig([
      {
        name: "c",
        dataset: { type: "synthetic", input_tokens: 4, output_tokens: 2 },
        load: { type: "concurrency", concurrency: 1 },
        size: { requests: 40 },
        warmup: { requests: 0 },
      },
    ]);
    await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: dir,
      baseDir: dir,
      runs: 2,
      calibrate: false,
    });
    const read = (run: number) =>
      runFileSchema.parse(JSON.parse(readFileSync(join(dir!, "c", `run-${run}`, "run.json"), "utf8")));
    const crashed = read(0);
    expect(crashed.flags.serverCrashed).toBe(true);
    expect(crashed.flags.notes).toContain("server exited during the run: container x exited with code 137");
    expect(starts).toBe(2);
    expect(read(1).requests.completed).toBe(40);
  });
});
