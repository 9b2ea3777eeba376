import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerForConfig } from "../../../src/server/index.js";
import { complete, freePort } from "../docker-helpers.js";
import {
  docker,
  dockerCommand,
  labelledContainers,
  removeLabelledContainers,
  runSuite,
  standInConfig,
  standInImage,
} from "./daemon.js";

let image = "";
let dir = "";
beforeAll(() => {
  image = standInImage();
  dir = mkdtempSync(join(tmpdir(), "vpg-docker-real-"));
}, 60_000);
afterAll(() => {
  removeLabelledContainers();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!runSuite)("docker kind on a real daemon: gpus and the docker command", () => {
  it("starts a CPU-only container with gpus: none (no --gpus flag) through server.docker_command", async () => {
    // A wrapper as docker_command: it records its arguments and hands them to the real CLI.
    const calls = join(dir, "calls.log");
    const wrapper = join(dir, "docker-wrapper.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> "${calls}"\nexec ${dockerCommand} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const config = standInConfig(image, { port: await freePort(), docker_command: [wrapper] });
    const provider = providerForConfig(config, { nvidiaSmiCommand: null, pollIntervalMs: 100 });
    const session = await provider.start({ cell: "c", logDir: dir });
    try {
      expect(await complete(session.endpoint.baseUrl, "sim-model")).toBe(200);
      const [container] = labelledContainers();
      expect(container?.state).toBe("running");
      const inspected = JSON.parse(
        docker(["inspect", "--format", "{{json .HostConfig.DeviceRequests}}", container!.name]),
      );
      expect(inspected).toBeNull();
    } finally {
      await session.stop();
    }
    const logged = readFileSync(calls, "utf8");
    expect(logged).toMatch(/^run --detach /m);
    expect(logged).not.toMatch(/--gpus/);
    expect(logged).toMatch(/^rm --force /m);
    expect(labelledContainers()).toEqual([]);
  }, 60_000);
});

describe.skipIf(!runSuite)("docker kind on a real daemon: where the port is published", () => {
  it("publishes on 127.0.0.1 by default, so a dev-mode server answers only on loopback", async () => {
    const config = standInConfig(image, { port: await freePort(), lifecycle: "per-cell" });
    const provider = providerForConfig(config, { nvidiaSmiCommand: null, pollIntervalMs: 100 });
    const session = await provider.start({ cell: "c", logDir: dir });
    try {
      const [container] = labelledContainers();
      const bindings = JSON.parse(
        docker(["inspect", "--format", "{{json .HostConfig.PortBindings}}", container!.name]),
      ) as Record<string, { HostIp: string; HostPort: string }[]>;
      expect(Object.values(bindings).flat()).toEqual([
        { HostIp: "127.0.0.1", HostPort: String(config.server.kind === "docker" && config.server.port) },
      ]);
      // Dev mode is on (a shared server resets its prefix cache), and it answers on loopback.
      const reset = await fetch(`${session.endpoint.baseUrl}/reset_prefix_cache`, { method: "POST" });
      expect(reset.status).toBe(200);
    } finally {
      await session.stop();
    }
  }, 60_000);
});
