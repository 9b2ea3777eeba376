import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ServerStartError } from "../../../src/server/errors.js";
import { providerForConfig } from "../../../src/server/provider.js";
import { noSecrets } from "../../job-outbound.js";
import { complete, freePort } from "../docker-helpers.js";
import { docker, dockerCommand, labelledContainers, runSuite, standInConfig, useStandIn } from "./daemon.js";

const standIn = useStandIn();

describe.skipIf(!runSuite)("docker kind on a real daemon: gpus and the docker command", () => {
  it("starts a CPU-only container with gpus: none (no --gpus flag) through server.docker_command", async () => {
    // A wrapper as docker_command: it records its arguments and hands them to the real CLI.
    const calls = join(standIn.dir, "calls.log");
    const wrapper = join(standIn.dir, "docker-wrapper.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> "${calls}"\nexec ${dockerCommand} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const config = standInConfig(standIn.image, { port: await freePort(), docker_command: [wrapper] });
    const provider = providerForConfig(config, {
      outbound: noSecrets,
      nvidiaSmiCommand: null,
      pollIntervalMs: 100,
    });
    const session = await provider.start({ cell: "c", logDir: standIn.dir });
    try {
      expect(await complete(session.endpoint.baseUrl, "sim-model")).toBe(200);
      const [container] = labelledContainers();
      expect(container?.state).toBe("running");
      const inspected = JSON.parse(
        docker(["inspect", "--format", "{{json .HostConfig.DeviceRequests}}", container!.name]),
      );
      expect(inspected).toBeNull();
      // The model goes to the image's `vllm serve` entrypoint positionally (no --model deprecation).
      const args = JSON.parse(
        docker(["inspect", "--format", "{{json .Config.Cmd}}", container!.name]),
      ) as string[];
      expect(args[0]).toBe("sim-model");
      expect(args).not.toContain("--model");
    } finally {
      await session.stop();
    }
    expect(readFileSync(session.logFile, "utf8")).not.toMatch(/--model|deprecated/);
    const logged = readFileSync(calls, "utf8");
    expect(logged).toMatch(/^run --detach /m);
    expect(logged).not.toMatch(/--gpus/);
    // -t: docker 20.10's --time and docker 28's --timeout (which deprecates --time) alike.
    expect(logged).toMatch(/^stop -t \d+ /m);
    expect(logged).toMatch(/^rm --force /m);
    expect(labelledContainers()).toEqual([]);
  }, 60_000);
});

describe.skipIf(!runSuite)("docker kind on a real daemon: where the port is published", () => {
  it("publishes on 127.0.0.1 by default, so a dev-mode server answers only on loopback", async () => {
    const config = standInConfig(standIn.image, { port: await freePort(), lifecycle: "per-cell" });
    const provider = providerForConfig(config, {
      outbound: noSecrets,
      nvidiaSmiCommand: null,
      pollIntervalMs: 100,
    });
    const session = await provider.start({ cell: "c", logDir: standIn.dir });
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

describe.skipIf(!runSuite)("docker kind on a real daemon: pulls and pins", () => {
  it("names the likely cause when a pull cannot reach the registry", async () => {
    const config = standInConfig("127.0.0.1:1/vllm/vllm-openai:v0.11.0", { port: await freePort() });
    const provider = providerForConfig(config, {
      outbound: noSecrets,
      nvidiaSmiCommand: null,
      pollIntervalMs: 100,
    });
    const error = await provider.start({ cell: "c", logDir: standIn.dir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).likelyCause).toBe("registry-unreachable");
    expect((error as ServerStartError).message).toMatch(
      /Likely cause: the daemon cannot reach the image's registry/,
    );
  }, 60_000);

  it("warns about a tag-only image once per provider, not at every start (per-run servers)", async () => {
    const config = standInConfig(standIn.image, { port: await freePort(), lifecycle: "per-run" });
    const warnings: string[] = [];
    const provider = providerForConfig(config, {
      outbound: noSecrets,
      nvidiaSmiCommand: null,
      pollIntervalMs: 100,
      warn: (message) => warnings.push(message),
    });
    for (const run of [0, 1]) {
      const session = await provider.start({ cell: "c", run, logDir: standIn.dir });
      await session.stop();
    }
    expect(warnings.filter((warning) => /pinned by tag only/.test(warning))).toHaveLength(1);
  }, 60_000);
});
