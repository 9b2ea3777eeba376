import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32, createInflateRaw } from "node:zlib";

/**
 * Extracts a zip archive (an artifact downloaded from GitHub) with its limits enforced while it is
 * written, not after: the entry count and the declared sizes are checked from the central directory
 * before anything is written, and every entry is inflated through a counter that stops at the first
 * byte over the total, over the entry's declared size, or over the compression ratio. Names are
 * checked before use (no absolute paths, no `..`, no backslashes), symbolic links and other special
 * entries are refused, and on any breach everything written so far is removed.
 *
 * The format (PKWARE APPNOTE 6.3.10): the end-of-central-directory record at the end of the file
 * points to the central directory, one record per entry, each pointing to the entry's local header
 * and data. Only stored (0) and deflated (8) entries are read; zip64 and encryption are refused
 * (an artifact within the limits never needs zip64).
 */

export interface ExtractionLimits {
  /** Bytes written for all entries together. */
  maxTotalBytes: number;
  /** Entries in the archive (files and directories). */
  maxFiles: number;
  /**
   * Bytes an entry has written / compressed bytes it has consumed, checked while it inflates once
   * it has written ratioFloorBytes.
   */
  maxCompressionRatio: number;
}

/** Entries smaller than this may compress arbitrarily well (a file of zeros); only larger ones are ratio-checked. */
const ratioFloorBytes = 1024 * 1024;
const maxNameBytes = 1024;

export class ArchiveLimitError extends Error {
  override readonly name = "ArchiveLimitError";
  /** Bytes that had been written (and were then removed) when the breach was found. */
  bytesWritten = 0;
}

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  isDirectory: boolean;
}

const eocdSignature = 0x06054b50;
const centralSignature = 0x02014b50;
const localSignature = 0x04034b50;

/** The entry's kind from the Unix mode in the external attributes (when made on Unix). */
function unixKind(versionMadeBy: number, externalAttributes: number): number | null {
  if (versionMadeBy >> 8 !== 3) return null;
  const mode = externalAttributes >>> 16;
  return mode === 0 ? null : mode & 0o170000;
}

function checkName(name: string, fail: (message: string) => never): void {
  if (name.length === 0) fail("an entry has an empty name");
  if (name.includes("\0")) fail(`entry ${JSON.stringify(name)}: NUL in its name`);
  if (name.includes("\\")) fail(`entry ${JSON.stringify(name)}: backslashes are not allowed in names`);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name))
    fail(`entry ${JSON.stringify(name)}: absolute paths are not allowed`);
  const parts = name.replace(/\/$/, "").split("/");
  if (parts.some((part) => part === ".." || part === "." || part === ""))
    fail(`entry ${JSON.stringify(name)}: path traversal ("..", "." or empty segments) is not allowed`);
}

async function readCentralDirectory(
  archive: string,
  limits: ExtractionLimits,
  fail: (message: string) => never,
): Promise<Entry[]> {
  const handle = await open(archive, "r");
  try {
    const { size } = await handle.stat();
    const { entryCount, directorySize, directoryOffset } = await endOfDirectory(handle, size, limits, fail);
    const directory = Buffer.alloc(directorySize);
    await handle.read(directory, 0, directorySize, directoryOffset);
    const entries: Entry[] = [];
    const names = new Set<string>();
    let declaredTotal = 0;
    let at = 0;
    for (let i = 0; i < entryCount; i++) {
      const record = directoryRecord(directory, at, i, fail);
      at = record.next;
      const entry = checkedEntry(record, fail);
      const key = entry.name.replace(/\/$/, "");
      if (names.has(key)) fail(`entry ${JSON.stringify(entry.name)} appears twice`);
      names.add(key);
      if (entry.localHeaderOffset + 30 + entry.compressedSize > size)
        fail(`entry ${JSON.stringify(entry.name)}: its data lies outside the file`);
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > limits.maxTotalBytes)
        fail(`entries declare more than ${limits.maxTotalBytes} bytes uncompressed (limit maxTotalBytes)`);
      entries.push(entry);
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/**
 * The end of central directory record, found in the file's last 64 KiB: how many entries, and where
 * the directory lies. Zip64, multi-disk archives and more entries than maxFiles are refused.
 */
async function endOfDirectory(
  handle: Awaited<ReturnType<typeof open>>,
  size: number,
  limits: ExtractionLimits,
  fail: (message: string) => never,
): Promise<{ entryCount: number; directorySize: number; directoryOffset: number }> {
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = Buffer.alloc(tailLength);
  await handle.read(tail, 0, tailLength, size - tailLength);
  let eocd = -1;
  for (let i = tailLength - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === eocdSignature) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) fail("not a zip archive (no end of central directory record)");
  const disk = tail.readUInt16LE(eocd + 4);
  const entryCount = tail.readUInt16LE(eocd + 10);
  const directorySize = tail.readUInt32LE(eocd + 12);
  const directoryOffset = tail.readUInt32LE(eocd + 16);
  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff)
    fail("zip64 archives are not supported (an artifact within the limits never needs one)");
  if (disk !== 0) fail("multi-disk archives are not supported");
  if (entryCount > limits.maxFiles)
    fail(`${entryCount} entries, more than the ${limits.maxFiles} allowed (limit maxFiles)`);
  if (directoryOffset + directorySize > size) fail("the central directory lies outside the file");
  return { entryCount, directorySize, directoryOffset };
}

/** A central directory record's fields as written, read at `at`, and where the next record starts. */
interface DirectoryRecord {
  name: string;
  versionMadeBy: number;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  externalAttributes: number;
  localHeaderOffset: number;
  next: number;
}

function directoryRecord(
  directory: Buffer,
  at: number,
  index: number,
  fail: (message: string) => never,
): DirectoryRecord {
  if (at + 46 > directory.length || directory.readUInt32LE(at) !== centralSignature)
    fail(`central directory record ${index} is malformed`);
  const nameLength = directory.readUInt16LE(at + 28);
  const extraLength = directory.readUInt16LE(at + 30);
  const commentLength = directory.readUInt16LE(at + 32);
  if (nameLength > maxNameBytes) fail(`entry ${index}: name longer than ${maxNameBytes} bytes`);
  if (at + 46 + nameLength > directory.length) fail(`central directory record ${index} is malformed`);
  return {
    name: directory.toString("utf8", at + 46, at + 46 + nameLength),
    versionMadeBy: directory.readUInt16LE(at + 4),
    flags: directory.readUInt16LE(at + 8),
    method: directory.readUInt16LE(at + 10),
    crc: directory.readUInt32LE(at + 16),
    compressedSize: directory.readUInt32LE(at + 20),
    uncompressedSize: directory.readUInt32LE(at + 24),
    externalAttributes: directory.readUInt32LE(at + 38),
    localHeaderOffset: directory.readUInt32LE(at + 42),
    next: at + 46 + nameLength + extraLength + commentLength,
  };
}

/**
 * An entry a baseline may hold: a safe name, not encrypted, no zip64, a regular file (stored or
 * deflated) or a directory, its data inside the file.
 */
function checkedEntry(record: DirectoryRecord, fail: (message: string) => never): Entry {
  const { name, flags, method, compressedSize, uncompressedSize, localHeaderOffset } = record;
  checkName(name, fail);
  const quoted = JSON.stringify(name);
  if (flags & 0x1) fail(`entry ${quoted}: encrypted entries are not supported`);
  if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localHeaderOffset === 0xffffffff)
    fail(`entry ${quoted}: zip64 entries are not supported`);
  const kind = unixKind(record.versionMadeBy, record.externalAttributes);
  if (kind === 0o120000) fail(`entry ${quoted}: symbolic links are not allowed in a baseline`);
  const isDirectory = name.endsWith("/") || kind === 0o040000;
  if (kind !== null && kind !== 0o100000 && kind !== 0o040000)
    fail(`entry ${quoted}: only regular files and directories are allowed`);
  if (!isDirectory && method !== 0 && method !== 8)
    fail(`entry ${quoted}: compression method ${method} is not supported (stored or deflate only)`);
  return {
    name,
    method,
    flags,
    crc: record.crc,
    compressedSize,
    uncompressedSize,
    localHeaderOffset,
    isDirectory,
  };
}

/** Accepts a directory that does not exist or is empty; refuses one with content. */
export async function assertEmptyOrAbsent(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (entries.length > 0)
    throw new Error(`${dir} is not empty: an artifact is only extracted into an empty directory`);
}

async function dataOffset(archive: string, entry: Entry, fail: (message: string) => never): Promise<number> {
  const handle = await open(archive, "r");
  try {
    const header = Buffer.alloc(30);
    await handle.read(header, 0, 30, entry.localHeaderOffset);
    if (header.readUInt32LE(0) !== localSignature)
      fail(`entry ${JSON.stringify(entry.name)}: no local header where the central directory points`);
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    await handle.close();
  }
}

/**
 * Extracts `archive` into `destination` (created; it must not exist or be empty). Resolves with the
 * bytes written; rejects with an ArchiveLimitError naming the limit or the defect, after removing
 * `destination`.
 */
export async function extractZip(
  archive: string,
  destination: string,
  limits: ExtractionLimits,
): Promise<{ files: number; bytes: number }> {
  const fail = (message: string): never => {
    throw new ArchiveLimitError(message);
  };
  const totals = { written: 0, files: 0 };
  // Checked before anything can be removed: on a breach the whole destination goes.
  await assertEmptyOrAbsent(destination);
  try {
    const entries = await readCentralDirectory(archive, limits, fail);
    const archiveSize = (await stat(archive)).size;
    await mkdir(destination, { recursive: true });
    for (const entry of entries) {
      const target = join(destination, ...entry.name.replace(/\/$/, "").split("/"));
      if (entry.isDirectory) {
        await mkdir(target, { recursive: true });
        continue;
      }
      const start = await dataOffset(archive, entry, fail);
      if (start + entry.compressedSize > archiveSize)
        fail(`entry ${JSON.stringify(entry.name)}: its data lies outside the file`);
      await mkdir(dirname(target), { recursive: true });
      await extractFile(archive, entry, start, target, { limits, totals, fail });
      totals.files++;
    }
    return { files: totals.files, bytes: totals.written };
  } catch (error) {
    await rm(destination, { recursive: true, force: true });
    if (error instanceof ArchiveLimitError) error.bytesWritten = totals.written;
    throw error;
  }
}

/**
 * One file entry written to `target` (never over an existing file), inflated and counted as it goes: a
 * chunk that would pass the total, the entry's declared size or the compression ratio is never written.
 * The entry's size and CRC-32 are checked at its end.
 */
async function extractFile(
  archive: string,
  entry: Entry,
  start: number,
  target: string,
  context: { limits: ExtractionLimits; totals: { written: number }; fail: (message: string) => never },
): Promise<void> {
  const { limits, totals, fail } = context;
  let entryBytes = 0;
  let crc = 0;
  const quoted = JSON.stringify(entry.name);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      // Counted before the chunk is passed on: a chunk that would breach a limit is never written.
      const entryNext = entryBytes + chunk.length;
      const breach =
        totals.written + chunk.length > limits.maxTotalBytes
          ? `more than ${limits.maxTotalBytes} bytes uncompressed, stopped at entry ${quoted} (limit maxTotalBytes)`
          : entryNext > entry.uncompressedSize
            ? `entry ${quoted} inflates to more than the ${entry.uncompressedSize} bytes it declares`
            : entryNext > ratioFloorBytes && entryNext > limits.maxCompressionRatio * Math.max(1, consumed)
              ? `entry ${quoted} expands more than ${limits.maxCompressionRatio}:1 (limit maxCompressionRatio): a zip bomb`
              : null;
      if (breach) {
        callback(new ArchiveLimitError(breach));
        return;
      }
      entryBytes = entryNext;
      totals.written += chunk.length;
      crc = crc32(chunk, crc);
      callback(null, chunk);
    },
  });
  const source =
    entry.compressedSize === 0
      ? Readable.from([])
      : createReadStream(archive, {
          start,
          end: start + entry.compressedSize - 1,
          highWaterMark: 16 * 1024,
        });
  // Compressed bytes handed to the inflater so far: the ratio is judged as the entry inflates,
  // so a bomb is stopped within its first MiBs, not after 200 times its whole compressed size.
  let consumed = 0;
  const input = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      consumed += chunk.length;
      callback(null, chunk);
    },
  });
  const sink = createWriteStream(target, { flags: "wx" });
  try {
    if (entry.method === 8 && entry.compressedSize > 0)
      await pipeline(source, input, createInflateRaw(), counter, sink);
    else await pipeline(source, input, counter, sink);
  } catch (error) {
    if (error instanceof ArchiveLimitError) throw error;
    if ((error as NodeJS.ErrnoException).code === "EEXIST") fail(`entry ${quoted} appears twice`);
    fail(`entry ${quoted}: cannot inflate (${(error as Error).message})`);
  }
  if (entryBytes !== entry.uncompressedSize)
    fail(`entry ${quoted}: ${entryBytes} bytes, not the ${entry.uncompressedSize} it declares`);
  if (crc >>> 0 !== entry.crc >>> 0) fail(`entry ${quoted}: CRC-32 mismatch, the archive is corrupt`);
}
