import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema, type ServerConfig } from "../../src/config/schema.js";
import { dockerRunArgs } from "../../src/server/docker-launcher.js";
import { withDevice } from "../../src/server/process-kinds.js";
import { createServerProvider } from "../../src/server/provider.js";
import { noSecrets } from "../job-outbound.js";
import { serverConfigOf, simArgv, testCells, testModel } from "./fake-host.js";

const work = mkdtempSync(join(tmpdir(), "vpg-devices-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const model = testModel;
const cells = testCells;
const serverConfig = (server: Record<string, unknown>): ServerConfig =>
  serverConfigOf({ startup_timeout_s: 30, ...server });

/** Two free ports in a row (a device's server listens on server.port + its slot). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const next = createServer();
    const free = await new Promise<boolean>((resolve) => {
      next.once("error", () => resolve(false));
      next.listen(port + 1, "127.0.0.1", () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => next.close(resolve));
      return port;
    }
  }
}

describe("one server per device", () => {
  it("docker: the device request replaces server.gpus, quoted when it names several GPUs", () => {
    const config = serverConfig({ kind: "docker", image: "vllm/vllm-openai@sha256:" + "a".repeat(64) });
    const args = (device?: { slot: number; spec: string }) =>
      dockerRunArgs(config as Extract<ServerConfig, { kind: "docker" }>, [], "c", { devMode: true, device });
    const gpus = (list: string[]) => list[list.indexOf("--gpus") + 1];
    expect(gpus(args())).toBe("all");
    expect(gpus(args({ slot: 2, spec: "5" }))).toBe("device=5");
    expect(gpus(args({ slot: 0, spec: "0,1" }))).toBe('"device=0,1"');
  });

  it("command: {port} and {device} in the arguments, the config's port moved by the slot", () => {
    expect(
      withDevice(["serve", "--port", "{port}", "--tag", "gpu{device}"], { slot: 1, spec: "3" }, 8001),
    ).toEqual(["serve", "--port", "8001", "--tag", "gpu3"]);
  });

  it("command: the server of slot 1 listens on port + 1 and sees its GPU in CUDA_VISIBLE_DEVICES", async () => {
    const port = await freePortPair();
    const provider = createServerProvider(
      serverConfig({ kind: "command", argv: [...simArgv, "--port", "{port}"], port }),
      {
        outbound: noSecrets,
        model,
        pollIntervalMs: 100,
        nvidiaSmiCommand: null,
        device: { slot: 1, spec: "3" },
      },
    );
    try {
      const session = await provider.start({ cell: "c", logDir: work });
      expect(session.endpoint.baseUrl).toBe(`http://127.0.0.1:${port + 1}`);
      // The simulator takes the first GPU CUDA_VISIBLE_DEVICES gives it as its device.
      const admin = (await (await fetch(`${session.endpoint.baseUrl}/admin/config`)).json()) as {
        device: number;
      };
      expect(admin.device).toBe(3);
      const fingerprint = await session.fingerprint();
      // Recorded as written ({port} stays a template): the servers of every device record alike.
      expect(fingerprint.server.command).toEqual([...simArgv, "--port", "{port}"]);
      expect(fingerprint.runner.device).toBe("3");
      expect(session.logFile).toMatch(/server-c-device3\.log$/);
    } finally {
      await provider.stopAll();
    }
  }, 60_000);

  it("sim: --device selects the simulated GPU, recorded in the fingerprint as the runner's device", async () => {
    const provider = createServerProvider(serverConfig({ kind: "sim" }), {
      outbound: noSecrets,
      model,
      pollIntervalMs: 100,
      nvidiaSmiCommand: null,
      device: { slot: 0, spec: "2" },
    });
    try {
      const session = await provider.start({ cell: "c", logDir: work });
      const admin = (await (await fetch(`${session.endpoint.baseUrl}/admin/config`)).json()) as {
        device: number;
      };
      expect(admin.device).toBe(2);
      const fingerprint = await session.fingerprint();
      expect(fingerprint.runner.device).toBe("2");
      expect(fingerprint.server.command).not.toContain("--device");
    } finally {
      await provider.stopAll();
    }
  }, 60_000);
});

describe("runner.devices in the config", () => {
  const parse = (extra: Record<string, unknown>, server: Record<string, unknown> = { kind: "sim" }) =>
    configSchema.safeParse({ version: 1, server, model, cells, ...extra });

  it("takes a count or a list, each device once", () => {
    const count = parse({ runner: { devices: 3 } });
    expect(count.success && count.data.runner.devices).toEqual(["0", "1", "2"]);
    const list = parse({ runner: { devices: [4, "0,1"] } });
    expect(list.success && list.data.runner.devices).toEqual(["4", "0,1"]);
    const twice = parse({ runner: { devices: [1, "1"] } });
    expect(twice.success).toBe(false);
    expect(JSON.stringify(twice.error?.issues)).toContain("expected each device once");
    expect(parse({ runner: { devices: ["a"] } }).error?.issues[0]?.message).toBe(
      'expected a device index or a comma list such as "0,1"',
    );
    expect(parse({}).success && parse({}).data?.runner.devices).toBeUndefined();
  });

  it("refuses an external server, a command without {port} on several devices, and capacity cells", () => {
    const external = parse({ runner: { devices: 2 } }, { kind: "external", base_url: "http://127.0.0.1:1" });
    expect(JSON.stringify(external.error?.issues)).toContain("server.kind external");
    const command = parse(
      { runner: { devices: 2 } },
      { kind: "command", argv: ["vllm", "serve", "--port", "8000"] },
    );
    expect(command.error?.issues[0]).toMatchObject({ path: ["server", "argv"] });
    expect(command.error?.issues[0]?.message).toContain("{port}");
    const oneDevice = parse({ runner: { devices: [3] } }, { kind: "command", argv: ["vllm", "serve"] });
    expect(oneDevice.success).toBe(true);
    const capacity = configSchema.safeParse({
      version: 1,
      server: { kind: "sim" },
      model,
      runner: { devices: 2 },
      cells: [
        {
          ...cells[0],
          load: { type: "rate", rate: 1 },
          slo: { ttft_ms: 100 },
          capacity: { range: { min: 1, max: 10 } },
        },
      ],
    });
    expect(capacity.error?.issues[0]).toMatchObject({ path: ["runner", "devices"] });
  });
});
