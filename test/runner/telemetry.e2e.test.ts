import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCells } from "../../src/app/run-cells.js";
import { parseConfigText } from "../../src/config/load.js";
import { createServerProvider } from "../../src/server/provider.js";
import { noSecrets } from "../job-outbound.js";
import {
  dockerConfig,
  expectNoOrphans,
  fakeHosts,
  freePort,
  model,
  pinned,
} from "../server/docker-helpers.js";
import { simArgv } from "../server/fake-host.js";

const hosts = fakeHosts();
afterEach(() => hosts.disposeAll());

describe("GPU telemetry in run.json", () => {
  it("summarises the nvidia-smi samples of the measured phase and keeps the series", async () => {
    const fake = hosts.setup({ [pinned]: simArgv });
    const port = await freePort();
    const { config } = parseConfigText(
      `version: 1
server: { kind: docker, image: "${pinned}", port: ${port} }
model: { name: ${model.name}, revision: ${model.revision} }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 16, output_tokens: 64 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 40 }
    warmup: { requests: 0 }
telemetry: { metrics_interval_s: 0.2, nvidia_smi_interval_s: 0.1 }
client: { max_event_loop_lag_ms: 2000, max_schedule_lag_ms: 2000 }
`,
      "telemetry.yml",
    );
    const provider = createServerProvider(dockerConfig({ port }), {
      outbound: noSecrets,
      model,
      env: fake.env,
      pollIntervalMs: 100,
      stopGraceMs: 5_000,
      releaseTimeoutMs: 5_000,
    });
    const outDir = join(fake.dir, "results");
    try {
      const { runs } = await runCells({
        outbound: noSecrets,
        config,
        provider,
        outDir,
        baseDir: fake.dir,
        runs: 1,
        calibrate: false,
      });
      const telemetry = runs[0]?.file.telemetry;
      // The fake nvidia-smi reports a busy H100 while a container runs (test/fixtures/bin/fake-nvidia-smi.sh).
      expect(telemetry?.gpuUtilizationMax).toBeGreaterThan(0);
      expect(telemetry?.gpuMemoryUsedMaxMiB).toBeGreaterThan(0);
      const series = JSON.parse(readFileSync(join(outDir, "chat", "run-0", "telemetry.json"), "utf8"));
      expect(series.gpu.length).toBeGreaterThan(0);
      expect(series.metrics.length).toBeGreaterThan(0);
    } finally {
      await provider.stopAll();
    }
    expectNoOrphans(fake);
  }, 60_000);
});
