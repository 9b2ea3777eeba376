import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * How to run `vllm-perf-gate sim`: the bundled CLI (dist/cli.js) when it exists, which is always the case in
 * the published action; otherwise the TypeScript entry through tsx (a development checkout).
 */
function findPackageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let directory = from;
  for (;;) {
    const manifest = join(directory, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "vllm-perf-gate")
          return directory;
      } catch {
        // Not ours; keep climbing.
      }
    }
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/**
 * The argv prefix that runs the CLI; the launcher appends `sim` and its flags. Running from source (this
 * module is a .ts file under tsx or vitest), the simulator runs from source too, so a stale dist/ build
 * never answers for the code under test; the bundled action runs dist/cli.js.
 */
export function defaultCliCommand(
  root = findPackageRoot(),
  fromSource = import.meta.url.endsWith(".ts"),
): string[] {
  if (root === undefined) return ["vllm-perf-gate"];
  const bundled = join(root, "dist", "cli.js");
  const source = join(root, "src", "cli.ts");
  if (fromSource && existsSync(source)) return [process.execPath, "--import", resolveTsxLoader(root), source];
  if (existsSync(bundled)) return [process.execPath, bundled];
  return [process.execPath, "--import", resolveTsxLoader(root), source];
}

function resolveTsxLoader(root: string): string {
  try {
    return import.meta.resolve("tsx");
  } catch {
    return join(root, "node_modules", "tsx", "dist", "loader.mjs");
  }
}
