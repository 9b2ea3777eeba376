import { createReadStream, createWriteStream } from "node:fs";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ArchiveLimitError, assertEmptyOrAbsent, type ExtractionLimits } from "./zip-extract.js";

/** Regular files only: symlinks are skipped so an upload never follows a link out of the directory. */
export async function listFilesRecursively(rootDir: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  await walk(rootDir);
  return files;
}

/**
 * Copies a directory tree (a locally stored artifact) with the same limits as extracting a
 * downloaded one: entries and bytes are counted while copying, symbolic links and special files are
 * refused, and on the first breach the destination is removed and an ArchiveLimitError names the limit.
 */
export async function copyTreeWithLimits(
  sourceDir: string,
  destination: string,
  limits: Pick<ExtractionLimits, "maxTotalBytes" | "maxFiles">,
): Promise<{ files: number; bytes: number }> {
  let entries = 0;
  let bytes = 0;
  let files = 0;
  const fail = (message: string): never => {
    throw new ArchiveLimitError(message);
  };
  const walk = async (from: string, to: string, shown: string) => {
    await mkdir(to, { recursive: true });
    for (const entry of (await readdir(from, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const name = shown ? `${shown}/${entry.name}` : entry.name;
      if (++entries > limits.maxFiles)
        fail(`more than ${limits.maxFiles} entries, stopped at ${JSON.stringify(name)} (limit maxFiles)`);
      if (entry.isSymbolicLink())
        fail(`entry ${JSON.stringify(name)}: symbolic links are not allowed in a baseline`);
      if (entry.isDirectory()) {
        await walk(join(from, entry.name), join(to, entry.name), name);
        continue;
      }
      if (!entry.isFile())
        fail(`entry ${JSON.stringify(name)}: only regular files and directories are allowed`);
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (bytes + chunk.length > limits.maxTotalBytes) {
            callback(
              new ArchiveLimitError(
                `more than ${limits.maxTotalBytes} bytes, stopped at entry ${JSON.stringify(name)} (limit maxTotalBytes)`,
              ),
            );
            return;
          }
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline(
        createReadStream(join(from, entry.name)),
        counter,
        createWriteStream(join(to, entry.name), { flags: "wx" }),
      );
      files++;
    }
  };
  if (!(await lstat(sourceDir)).isDirectory()) fail(`${sourceDir} is not a directory`);
  // Checked before anything can be removed: on a breach the whole destination goes.
  await assertEmptyOrAbsent(destination);
  try {
    await walk(sourceDir, destination, "");
    return { files, bytes };
  } catch (error) {
    await rm(destination, { recursive: true, force: true });
    if (error instanceof ArchiveLimitError) error.bytesWritten = bytes;
    throw error;
  }
}
