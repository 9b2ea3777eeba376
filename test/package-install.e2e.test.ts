import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The README's install line, checked from the two archives a user installs from: the one GitHub serves for
 * a commit (`https://github.com/<owner>/vllm-perf-gate/archive/<sha>.tar.gz`, what `git archive` writes)
 * and the tarball `npm pack` writes (a release asset). Each is installed with `npm install --global` into
 * a temporary prefix, offline, with an empty npm cache, from a directory outside this checkout and with no
 * path of it on PATH; then the installed CLI runs `--help`, every command's `--help`, `init` and `validate`.
 * The bundle in dist/ is the whole program: installing needs no registry and builds nothing.
 */

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const work = realpathSync(mkdtempSync(join(tmpdir(), "vpg-install-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/**
 * A machine without this checkout: its own HOME and empty npm cache, offline, and PATH without any
 * directory of the checkout (`npm test` puts its node_modules/.bin there).
 */
function freshMachine(home: string): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((entry) => entry !== "" && !resolve(entry).startsWith(repoRoot));
  return {
    PATH: [dirname(process.execPath), ...path].join(delimiter),
    HOME: home,
    npm_config_cache: join(home, ".npm"),
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

/** The archive GitHub serves for this commit: `git archive` of HEAD, under one top-level directory. */
async function githubArchive(into: string): Promise<string> {
  const env = { ...process.env };
  const head = await run("git", ["rev-parse", "HEAD"], repoRoot, env);
  expect(head.code, head.stderr).toBe(0);
  const sha = head.stdout.trim();
  const file = join(into, `${sha}.tar.gz`);
  const archived = await run(
    "git",
    ["archive", "--format=tar.gz", `--prefix=vllm-perf-gate-${sha}/`, "-o", file, "HEAD"],
    repoRoot,
    env,
  );
  expect(archived.code, archived.stderr).toBe(0);
  return file;
}

/** The release tarball: `npm pack` of this checkout, whose package.json `files` say what it holds. */
async function npmPack(into: string): Promise<string> {
  const packed = await run("npm", ["pack", "--json", "--pack-destination", into], repoRoot, {
    ...process.env,
    npm_config_update_notifier: "false",
  });
  expect(packed.code, packed.stderr).toBe(0);
  const [report] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  // The bundle, the JSON Schema, the action's metadata and the README; no sources, tests or docs.
  const tops = new Set(report!.files.map((entry) => entry.path.split("/")[0]));
  expect([...tops].sort()).toEqual(["README.md", "action.yml", "dist", "package.json", "schema"]);
  return join(into, report!.filename);
}

const archives = [
  { name: "the commit's archive GitHub serves", make: githubArchive },
  { name: "the tarball npm pack writes", make: npmPack },
];

describe("installing the CLI on a machine without this checkout", () => {
  for (const archive of archives) {
    it(`from ${archive.name}: npm install --global, offline, then --help, init and validate`, async () => {
      const root = mkdtempSync(join(work, "machine-"));
      const home = join(root, "home");
      const project = join(root, "project");
      const prefix = join(root, "prefix");
      for (const dir of [home, project]) mkdirSync(dir);
      const tarball = await archive.make(root);
      const env = freshMachine(home);

      const installed = await run(
        "npm",
        ["install", "--global", "--prefix", prefix, "--offline", tarball],
        project,
        env,
      );
      expect(installed.code, installed.stdout + installed.stderr).toBe(0);
      const cli = join(prefix, "bin", "vllm-perf-gate");
      expect(realpathSync(cli)).toBe(join(prefix, "lib", "node_modules", "vllm-perf-gate", "dist", "cli.js"));
      // A package with no dependencies: the bundle is the program.
      expect(existsSync(join(prefix, "lib", "node_modules", "vllm-perf-gate", "node_modules"))).toBe(false);

      const help = await run(cli, ["--help"], project, env);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain("Usage: vllm-perf-gate <command> [options]");
      // Each command's module loads (the CLI imports a command's module only when it runs).
      for (const command of ["validate", "init", "sim", "run", "compare", "demo", "history", "calibrate"]) {
        const usage = await run(cli, [command, "--help"], project, env);
        expect(usage.code, `${command} --help: ${usage.stderr}`).toBe(0);
        expect(usage.stdout, command).toContain(`Usage: vllm-perf-gate ${command}`);
      }

      const init = await run(cli, ["init", "--preset", "chat", "--server", "sim"], project, env);
      expect(init.code, init.stderr).toBe(0);
      const config = readFileSync(join(project, "vllm-perf-gate.yml"), "utf8");
      // The editor's schema is the one installed with the CLI.
      const schema = /^# yaml-language-server: \$schema=(.+)$/m.exec(config)?.[1];
      expect(schema).toBeDefined();
      expect(existsSync(resolve(project, schema!)), schema).toBe(true);
      const validated = await run(cli, ["validate"], project, env);
      expect(validated.code, validated.stderr).toBe(0);
      expect(validated.stdout).toContain("vllm-perf-gate.yml: valid");
    }, 180_000);
  }
});
