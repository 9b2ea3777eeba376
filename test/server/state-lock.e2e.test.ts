import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { addLiveServer, readServerState } from "../../src/server/state.js";

/**
 * Several CLI runs on one machine share the state file: their read-modify-writes must not lose one
 * another's entries (a lost entry is a server nobody stops). The writers are separate processes.
 */

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = mkdtempSync(join(tmpdir(), "vpg-state-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const writer = (stateFile: string, prefix: string, count: number) => `
import { addLiveServer } from ${JSON.stringify(join(repoRoot, "src", "server", "state.ts"))};
for (let i = 0; i < ${count}; i++) {
  await addLiveServer(${JSON.stringify(stateFile)}, {
    id: "${prefix}-" + i, kind: "sim", startedAt: new Date().toISOString(), cell: "c", run: i, ownerPid: process.pid,
  });
}
`;

function runWriter(code: string): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: repoRoot,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return new Promise((resolve) => child.once("close", resolve));
}

describe("the server state file shared by several processes", () => {
  it("keeps every entry when four processes add 25 servers each at once", async () => {
    const stateFile = join(dir, "shared", "servers.json");
    const codes = await Promise.all(
      ["a", "b", "c", "d"].map((prefix) => runWriter(writer(stateFile, prefix, 25))),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const ids = (await readServerState(stateFile)).servers.map((server) => server.id);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
  }, 120_000);

  it("takes over a lock whose holder was killed mid-write", async () => {
    const stateFile = join(dir, "stale", "servers.json");
    // A process that has exited: its pid is in the lock, as a writer SIGKILLed while holding it leaves.
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    await addLiveServer(stateFile, { id: "first", kind: "sim", startedAt: "t", cell: "c", run: 0 });
    writeFileSync(`${stateFile}.lock`, gone.stdout);
    await addLiveServer(stateFile, { id: "second", kind: "sim", startedAt: "t", cell: "c", run: 1 });
    expect((await readServerState(stateFile)).servers.map((server) => server.id)).toEqual([
      "first",
      "second",
    ]);
  }, 30_000);
});
