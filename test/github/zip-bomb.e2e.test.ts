import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArtifactStore } from "../../src/github/artifact-store.js";
import { type BaselineLimits, defaultBaselineLimits } from "../../src/github/baseline-bundle.js";
import { ArchiveLimitError, extractZip } from "../../src/github/zip-extract.js";
import { FakeGitHub, runtimeToken } from "./fake-github.js";

/**
 * Crafted archives (PKWARE APPNOTE 6.3.10 layout: local headers + data, central directory, end
 * record), built here so each can lie the way a hostile baseline would: a tiny deflate stream that
 * expands enormously, more entries than allowed, `../` names, symlink entries, sizes that understate.
 */
interface CraftedEntry {
  name: string;
  /** Uncompressed content (deflated unless `stored`). */
  data?: Buffer;
  /** Precomputed deflate stream and its true size, for entries too large to hold uncompressed. */
  deflated?: { bytes: Buffer; size: number; crc: number };
  stored?: boolean;
  /** Unix mode in the external attributes (made-by Unix). */
  mode?: number;
  /** Lie about the uncompressed size in the central directory. */
  declaredSize?: number;
}

function craftZip(entries: readonly CraftedEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const data = entry.data ?? Buffer.alloc(0);
    const method = entry.stored || entry.name.endsWith("/") ? 0 : 8;
    const compressed = entry.deflated?.bytes ?? (method === 8 ? deflateRawSync(data) : data);
    const size = entry.deflated?.size ?? data.length;
    const crc = entry.deflated?.crc ?? crc32(data);
    const declared = entry.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.mode === undefined ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += 30 + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A deflate stream of `mebibytes` MiB of zeros (about 1000:1), built a MiB at a time. */
function zerosBomb(mebibytes: number): CraftedEntry["deflated"] {
  const mib = Buffer.alloc(1024 * 1024);
  let crc = 0;
  for (let i = 0; i < mebibytes; i++) crc = crc32(mib, crc);
  return { bytes: deflateRawSync(Buffer.alloc(mebibytes * 1024 * 1024)), size: mebibytes * mib.length, crc };
}

const runJson = Buffer.from('{"hello":"world"}\n');

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true }).catch(() => [])) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) await walk(path);
      else total += (await stat(path)).size;
    }
  };
  await walk(dir);
  return total;
}

let dir: string;
const fake = new FakeGitHub();
let storeModule: typeof import("../../src/github/artifact-store.js");

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "zip-bomb-"));
  const baseUrl = await fake.start();
  process.env.GITHUB_API_URL = baseUrl;
  process.env.ACTIONS_RESULTS_URL = `${baseUrl}/`;
  process.env.ACTIONS_RUNTIME_TOKEN = runtimeToken("run-backend-9", "job-backend-1");
  delete process.env.GITHUB_SERVER_URL;
  fake.users.set("ghs_installation", { login: "github-actions[bot]", type: "Bot", installation: true });
  fake.runs.push({
    id: 9,
    head_sha: "b".repeat(40),
    head_branch: "main",
    event: "push",
    conclusion: "success",
    workflowFile: "bench.yml",
    created_at: "2026-11-01T00:00:00Z",
    backendId: "run-backend-9",
  });
  storeModule = await import("../../src/github/artifact-store.js");
});

afterAll(async () => {
  await fake.stop();
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
async function extractCrafted(entries: CraftedEntry[], limits: BaselineLimits = defaultBaselineLimits) {
  const case_ = join(dir, `case-${counter++}`);
  await mkdir(case_, { recursive: true });
  const archive = join(case_, "artifact.zip");
  await writeFile(archive, craftZip(entries));
  const destination = join(case_, "out", "baseline");
  const error = await extractZip(archive, destination, limits).then(
    () => null,
    (caught: unknown) => caught,
  );
  return { case_, destination, error };
}

describe("extracting a downloaded archive enforces the limits while writing", () => {
  it("extracts an honest archive", async () => {
    const { destination, error } = await extractCrafted([
      { name: "chat/" },
      { name: "chat/run-0/run.json", data: runJson },
      { name: "report.md", data: Buffer.from("# report\n"), stored: true },
    ]);
    expect(error).toBeNull();
    expect(await readFile(join(destination, "chat", "run-0", "run.json"), "utf8")).toBe(
      '{"hello":"world"}\n',
    );
    expect(await readFile(join(destination, "report.md"), "utf8")).toBe("# report\n");
  });

  it("stops a 1000:1 entry (300 MiB from ~300 KiB) at the ratio limit and removes what it wrote", async () => {
    const bomb = zerosBomb(300);
    expect(bomb?.bytes.length).toBeLessThan(1024 * 1024);
    const { case_, destination, error } = await extractCrafted([
      { name: "chat/run-0/run.json", data: runJson },
      { name: "chat/run-0/requests.jsonl", deflated: bomb },
    ]);
    expect(error).toBeInstanceOf(ArchiveLimitError);
    expect((error as Error).message).toMatch(/expands more than 200:1 \(limit maxCompressionRatio\)/);
    // Judged while it inflates: stopped within its first few MiB, not after the 300 MiB it would
    // write (nor after 200 x its whole compressed size, ~60 MiB).
    expect((error as ArchiveLimitError).bytesWritten).toBeLessThan(8 * 1024 * 1024);
    await expect(stat(destination)).rejects.toThrow(/ENOENT/);
    expect(await bytesUnder(join(case_, "out"))).toBe(0);
  });

  it("stops at maxTotalBytes even when each entry's ratio is plausible, and never writes past it", async () => {
    const limits = { ...defaultBaselineLimits, maxTotalBytes: 1024 * 1024 };
    // Text that compresses ~ 30:1, like a log; 12 entries of 256 KiB = 3 MiB, declared as 1 byte each
    // so the central directory's totals pass and only the counter while writing can stop it.
    const line = (i: number) => `{"request":${i},"ttft_ms":${(i * 7919) % 1000},"status":"ok"}\n`;
    const text = Buffer.from(
      Array.from({ length: 4000 }, (_, i) => line(i))
        .join("")
        .slice(0, 256 * 1024),
    );
    const { destination, error } = await extractCrafted(
      Array.from({ length: 12 }, (_, i) => ({ name: `chat/run-${i}/requests.jsonl`, data: text })),
      limits,
    );
    expect(error).toBeInstanceOf(ArchiveLimitError);
    expect((error as Error).message).toMatch(
      /more than 1048576 bytes uncompressed .*\(limit maxTotalBytes\)/,
    );
    expect((error as ArchiveLimitError).bytesWritten).toBeLessThanOrEqual(limits.maxTotalBytes);
    await expect(stat(destination)).rejects.toThrow(/ENOENT/);
  });

  it("stops an entry that inflates beyond the size it declares", async () => {
    const { error } = await extractCrafted([
      { name: "chat/run-0/run.json", data: Buffer.alloc(64 * 1024, 0x61), declaredSize: 1000 },
    ]);
    expect((error as Error).message).toMatch(/inflates to more than the 1000 bytes it declares/);
    expect((error as ArchiveLimitError).bytesWritten).toBeLessThanOrEqual(1000);
  });

  it("refuses archives whose entries declare more than the limit before writing anything", async () => {
    const limits = { ...defaultBaselineLimits, maxTotalBytes: 100_000 };
    const { case_, error } = await extractCrafted(
      [
        { name: "a.txt", data: Buffer.alloc(60_000, 0x62) },
        { name: "b.txt", data: Buffer.alloc(60_000, 0x63) },
      ],
      limits,
    );
    expect((error as Error).message).toMatch(
      /declare more than 100000 bytes uncompressed \(limit maxTotalBytes\)/,
    );
    expect((error as ArchiveLimitError).bytesWritten).toBe(0);
    expect(await bytesUnder(join(case_, "out"))).toBe(0);
  });

  it("refuses more entries than maxFiles before writing anything", async () => {
    const limits = { ...defaultBaselineLimits, maxFiles: 50 };
    const { error } = await extractCrafted(
      Array.from({ length: 51 }, (_, i) => ({ name: `chat/run-${i}/run.json`, data: runJson })),
      limits,
    );
    expect((error as Error).message).toMatch(/51 entries, more than the 50 allowed \(limit maxFiles\)/);
    expect((error as ArchiveLimitError).bytesWritten).toBe(0);
  });

  it.each([
    ["../escape.txt"],
    ["chat/../../escape.txt"],
    ["/tmp/escape.txt"],
    ["C:/escape.txt"],
    ["chat\\..\\..\\escape.txt"],
  ])("refuses the traversing name %s and writes nothing outside", async (name) => {
    const { case_, error } = await extractCrafted([
      { name: "chat/run-0/run.json", data: runJson },
      { name, data: Buffer.from("pwned\n") },
    ]);
    expect(error).toBeInstanceOf(ArchiveLimitError);
    expect((error as Error).message).toMatch(/not allowed/);
    expect(await readdir(case_)).toEqual(["artifact.zip"]);
    await expect(stat(join(dir, "escape.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses a symlink entry (and a device or fifo entry)", async () => {
    const link = await extractCrafted([
      { name: "chat/run-0/run.json", data: Buffer.from("/etc/passwd"), stored: true, mode: 0o120777 },
    ]);
    expect((link.error as Error).message).toMatch(/symbolic links are not allowed/);
    const fifo = await extractCrafted([
      { name: "chat/pipe", data: Buffer.alloc(0), stored: true, mode: 0o010644 },
    ]);
    expect((fifo.error as Error).message).toMatch(/only regular files and directories are allowed/);
  });

  it("extracts only into an empty directory and never removes what was there before", async () => {
    const case_ = join(dir, `case-${counter++}`);
    await mkdir(join(case_, "out"), { recursive: true });
    await writeFile(join(case_, "out", "mine.txt"), "keep me\n");
    await writeFile(join(case_, "a.zip"), craftZip([{ name: "../x", data: runJson }]));
    await expect(extractZip(join(case_, "a.zip"), join(case_, "out"), defaultBaselineLimits)).rejects.toThrow(
      /is not empty/,
    );
    expect(await readFile(join(case_, "out", "mine.txt"), "utf8")).toBe("keep me\n");
  });

  it("refuses a name that appears twice (a later entry must not overwrite an earlier one)", async () => {
    const { error } = await extractCrafted([
      { name: "chat/run-0/run.json", data: runJson },
      { name: "chat/run-0/run.json", data: Buffer.from("{}") },
    ]);
    expect((error as Error).message).toMatch(/appears twice/);
  });
});

describe("the artifact stores extract with the limits", () => {
  const limits = { ...defaultBaselineLimits, maxTotalBytes: 2 * 1024 * 1024 };

  async function expectRefused(
    store: ArtifactStore,
    ref: { id: number; name: string; sizeBytes: number; runId?: number },
    pattern: RegExp,
    withLimits: BaselineLimits = limits,
  ) {
    const destination = join(dir, `download-${counter++}`, "baseline");
    const error = await store.download(ref, destination, withLimits).then(
      () => null,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toMatch(pattern);
    // What it had written when it stopped stays under the limit (and is removed).
    const written = /stopped after writing (\d+) bytes; nothing of it was kept\)$/.exec(error?.message ?? "");
    if (written) expect(Number(written[1])).toBeLessThanOrEqual(withLimits.maxTotalBytes);
    await expect(stat(destination)).rejects.toThrow(/ENOENT/);
    // No staging leftovers either.
    expect(await bytesUnder(join(destination, ".."))).toBe(0);
    return written ? Number(written[1]) : null;
  }

  it("GitHubArtifactStore: a bomb served by the artifact service is stopped and nothing is kept", async () => {
    const bomb = zerosBomb(64);
    const zip = craftZip([
      { name: "chat/run-0/run.json", data: runJson },
      { name: "chat/run-0/scrapes.jsonl", deflated: bomb },
    ]);
    fake.artifacts.push({
      id: 9001,
      runId: 9,
      name: "bomb",
      expired: false,
      zip,
      created_at: "2026-11-01T00:00:00Z",
    });
    const store = new storeModule.GitHubArtifactStore({
      token: "ghs_installation",
      owner: fake.owner,
      repo: fake.repo,
    });
    const written = await expectRefused(
      store,
      { id: 9001, name: "bomb", sizeBytes: zip.length, runId: 9 },
      /artifact bomb \(9001\): entry "chat\/run-0\/scrapes.jsonl" expands more than 200:1 \(limit maxCompressionRatio\): a zip bomb \(stopped after writing \d+ bytes; nothing of it was kept\)$/,
      defaultBaselineLimits,
    );
    // 64 MiB of zeros in ~64 KiB: stopped within its first MiBs.
    expect(written).toBeLessThan(8 * 1024 * 1024);
  });

  it("GitHubArtifactStore: symlink and traversal entries are refused", async () => {
    const zip = craftZip([
      { name: "chat/run-0/run.json", data: runJson },
      { name: "chat/run-0/link", data: Buffer.from("/etc/passwd"), stored: true, mode: 0o120777 },
    ]);
    fake.artifacts.push({
      id: 9002,
      runId: 9,
      name: "link",
      expired: false,
      zip,
      created_at: "2026-11-01T00:00:00Z",
    });
    const zip2 = craftZip([{ name: "../../escape.txt", data: Buffer.from("x") }]);
    fake.artifacts.push({
      id: 9003,
      runId: 9,
      name: "dots",
      expired: false,
      zip: zip2,
      created_at: "2026-11-01T00:00:00Z",
    });
    const store = new storeModule.GitHubArtifactStore({
      token: "ghs_installation",
      owner: fake.owner,
      repo: fake.repo,
    });
    await expectRefused(
      store,
      { id: 9002, name: "link", sizeBytes: zip.length, runId: 9 },
      /symbolic links are not allowed/,
    );
    await expectRefused(
      store,
      { id: 9003, name: "dots", sizeBytes: zip2.length, runId: 9 },
      /path traversal/,
    );
  });

  it("GitHubArtifactStore: an artifact whose reported size is over the limit is not downloaded", async () => {
    const store = new storeModule.GitHubArtifactStore({
      token: "ghs_installation",
      owner: fake.owner,
      repo: fake.repo,
    });
    const before = fake.requests.length;
    await expectRefused(
      store,
      { id: 9001, name: "bomb", sizeBytes: 3 * 1024 * 1024, runId: 9 },
      /3145728 bytes compressed, more than the 2097152 allowed \(limit maxTotalBytes\)/,
    );
    expect(fake.requests.length).toBe(before);
  });

  async function localArtifact(root: string, name: string, fill: (files: string) => Promise<void>) {
    const stored = join(root, "1", name);
    await mkdir(join(stored, "files"), { recursive: true });
    await fill(join(stored, "files"));
    const id = counter++;
    await writeFile(
      join(stored, "artifact.json"),
      JSON.stringify({ schemaVersion: 1, id, name, runId: 1, sizeBytes: 1 }),
    );
    return { id, name, sizeBytes: 1 };
  }

  it("LocalArtifactStore: a stored archive goes through the same extraction", async () => {
    const root = join(dir, "local-zip");
    const ref = await localArtifact(root, "bomb", async (files) => {
      await writeFile(
        join(files, "..", "artifact.zip"),
        craftZip([{ name: "chat/run-0/requests.jsonl", deflated: zerosBomb(16) }]),
      );
    });
    await expectRefused(
      new storeModule.LocalArtifactStore(root, 2),
      ref,
      /limit maxCompressionRatio/,
      defaultBaselineLimits,
    );
  });

  it("LocalArtifactStore: a stored directory is copied with the byte, entry and link limits", async () => {
    const root = join(dir, "local-dir");
    const big = await localArtifact(root, "big", async (files) => {
      await mkdir(join(files, "chat", "run-0"), { recursive: true });
      await writeFile(join(files, "chat", "run-0", "run.json"), runJson);
      await writeFile(join(files, "chat", "run-0", "requests.jsonl"), Buffer.alloc(3 * 1024 * 1024, 0x61));
    });
    const store = new storeModule.LocalArtifactStore(root, 2);
    const destination = join(dir, "local-big-out", "baseline");
    const error = await store.download(big, destination, limits).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(
      /more than 2097152 bytes, stopped at entry "chat\/run-0\/requests.jsonl" \(limit maxTotalBytes\)/,
    );
    await expect(stat(destination)).rejects.toThrow(/ENOENT/);

    const many = await localArtifact(root, "many", async (files) => {
      for (let i = 0; i < 12; i++) await writeFile(join(files, `f${i}.txt`), "x");
    });
    await expectRefused(store, many, /more than 10 entries.*\(limit maxFiles\)/, { ...limits, maxFiles: 10 });

    const linked = await localArtifact(root, "linked", async (files) => {
      await writeFile(join(files, "run.json"), runJson);
      await symlink("/etc/passwd", join(files, "passwd"));
    });
    await expectRefused(store, linked, /entry "passwd": symbolic links are not allowed/);
  });
});
