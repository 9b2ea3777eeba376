import { readdir } from "node:fs/promises";
import { join } from "node:path";

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
