import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { portHolders, removeLeftoverServers } from "../../src/server/cleanup.js";
import { labelledContainersOnPort } from "../../src/server/docker-cli.js";
import { addLiveServer, type LiveServer, readServerState } from "../../src/server/state.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "vpg-leftovers-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A process group that surely does not exist, so stopping it finds it "already gone".
const goneGroup = 2 ** 22 + 12_345;

function server(id: string, ownerPid: number | undefined, port: number): LiveServer {
  return {
    id,
    kind: "command",
    startedAt: "2026-01-01T00:00:00.000Z",
    cell: "c",
    run: null,
    processGroup: goneGroup,
    port,
    ...(ownerPid === undefined ? {} : { ownerPid }),
  };
}

describe("removeLeftoverServers", () => {
  it("stops and removes only entries whose owner is gone, one line each", async () => {
    const file = join(dir, "servers.json");
    await addLiveServer(file, server("dead", 111, 18080));
    await addLiveServer(file, server("alive", 222, 18081));
    await addLiveServer(file, server("old", undefined, 18082));
    const lines: string[] = [];
    const outcomes = await removeLeftoverServers(file, {
      isAlive: (pid) => pid === 222,
      log: (line) => lines.push(line),
    });
    expect(outcomes.map((o) => o.server.id)).toEqual(["dead"]);
    expect(lines).toEqual([
      `leftover command server for cell c (process group ${goneGroup}) of pid 111 (gone): already gone`,
    ]);
    expect((await readServerState(file)).servers.map((s) => s.id)).toEqual(["alive", "old"]);
  });
});

describe("portHolders", () => {
  it("names the recorded servers on the port with their owner's state", async () => {
    const file = join(dir, "servers.json");
    await addLiveServer(file, { ...server("a", 111, 18080), kind: "docker", container: "vpg-a" });
    await addLiveServer(file, server("b", 222, 18080));
    await addLiveServer(file, server("c", 333, 18090));
    const holders = await portHolders(18080, { stateFile: file, isAlive: (pid) => pid === 222 });
    expect(holders).toEqual([
      "container vpg-a recorded by pid 111 (gone)",
      `command server (process group ${goneGroup}) recorded by pid 222 (still running)`,
    ]);
  });

  it("adds the containers the kind finds on the port, those the state file names once", async () => {
    const file = join(dir, "servers.json");
    await addLiveServer(file, { ...server("a", 111, 18080), kind: "docker", container: "vpg-a" });
    const holders = await portHolders(18080, {
      stateFile: file,
      isAlive: () => false,
      running: async () => ["vpg-a", "vpg-b"],
    });
    expect(holders).toEqual([
      "container vpg-a recorded by pid 111 (gone)",
      "running container vpg-b (label vllm-perf-gate=1)",
    ]);
  });

  it("is empty, not an error, when docker cannot be run", async () => {
    const running = () => labelledContainersOnPort(["/nonexistent/docker"], 18080, { env: process.env });
    expect(await running()).toEqual([]);
    expect(await portHolders(18080, { running })).toEqual([]);
  });
});
