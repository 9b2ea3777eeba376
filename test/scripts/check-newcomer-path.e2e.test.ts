import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// scripts/check-newcomer-path.sh against a tiny repository and fake `npm` and `node` on PATH (the real
// path takes ~10 minutes): what it checks, and that it prints every step's time with the load.

const script = resolve("scripts/check-newcomer-path.sh");
const work = mkdtempSync(join(tmpdir(), "vpg-newcomer-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fake demo: writes the files check_demo reads and the line with the gate's exit code. */
const fakeDemo = (verdict: string, exit: number) => `
mkdir -p vllm-perf-gate-demo
printf '{"verdict":"${verdict}"}' > vllm-perf-gate-demo/verdict.json
printf '## x vllm-perf-gate: ${verdict}\\n' > vllm-perf-gate-demo/report.md
printf '## x vllm-perf-gate: ${verdict}\\n' > vllm-perf-gate-demo/comment.md
echo "the gate would have exited ${exit} (fake)"
`;

let setups = 0;
function setUp(cleanVerdict = "pass"): { repo: string; bin: string } {
  const root = join(work, `case-${setups++}`);
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  writeFileSync(
    join(repo, "README.md"),
    "# x\n\n```sh\nnpm ci && npm run demo     # demo\nnpm test   # tests\n```\n",
  );
  const bin = join(root, "bin");
  mkdirSync(bin, { recursive: true });
  const realNode = process.execPath;
  writeFileSync(
    join(bin, "npm"),
    `#!/usr/bin/env bash
case "$1" in
  ci) exit 0 ;;
  run) ${fakeDemo("regression", 1).trim().split("\n").join("\n       ")} ;;
  test) echo " Tests  7 passed (7)" ;;
esac
`,
  );
  writeFileSync(
    join(bin, "node"),
    `#!/usr/bin/env bash
if [ "$1" = dist/cli.js ]; then
  case "$4" in
    clean) ${fakeDemo(cleanVerdict, 0).trim().split("\n").join("\n       ")} ;;
    regression) ${fakeDemo("regression", 1).trim().split("\n").join("\n       ")} ;;
    flaky) ${fakeDemo("inconclusive", 0).trim().split("\n").join("\n       ")} ;;
    capacity) ${fakeDemo("pass", 0).trim().split("\n").join("\n       ")} ;;
    sessions) ${fakeDemo("regression", 1).trim().split("\n").join("\n       ")} ;;
  esac
  exit 0
fi
exec "${realNode}" "$@"
`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  chmodSync(join(bin, "node"), 0o755);
  return { repo, bin };
}

async function runScript(cleanVerdict?: string) {
  const { repo, bin } = setUp(cleanVerdict);
  const git = (...args: string[]) => promisify(execFile)("git", args, { cwd: repo });
  await git("init", "--quiet");
  await git("add", "README.md");
  await git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "x");
  return promisify(execFile)("bash", [script, repo], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("scripts/check-newcomer-path.sh", () => {
  it("checks every scenario and prints each step's time with the machine's load", async () => {
    const { code, stdout } = await runScript();
    expect(code).toBe(0);
    expect(stdout).toMatch(/^== on \d+ cores, load [\d.]+ \(1-min average\), \d{4}-\d\d-\d\dT\d\d:\d\dZ$/m);
    for (const scenario of [
      "tradeoff -> regression",
      "clean -> pass",
      "regression -> regression",
      "flaky -> inconclusive",
      "capacity -> pass",
      "sessions -> regression",
    ]) {
      expect(stdout).toContain(`ok: ${scenario}`);
    }
    const timings = stdout
      .split("== timings\n")[1]!
      .split("\n")
      .filter((line) => line.startsWith("   "));
    expect(timings.map((line) => line.replace(/: \d+ s \(load [\d.]+ -> [\d.]+\)$/, "").trim())).toEqual([
      "npm ci",
      "npm run demo (tradeoff)",
      "demo --scenario clean",
      "demo --scenario regression",
      "demo --scenario flaky",
      "demo --scenario capacity",
      "demo --scenario sessions",
      "npm test",
    ]);
    expect(stdout).toMatch(/^newcomer path OK in \d+ s$/m);
  });

  it("a scenario that misses its verdict fails the path at the end, after every step was run and timed", async () => {
    const { code, stdout, stderr } = await runScript("regression");
    expect(code).toBe(1);
    expect(stderr).toContain("FAIL: clean: verdict regression, expected pass|inconclusive");
    expect(stdout).toContain("ok: flaky -> inconclusive");
    expect(stdout).toMatch(/^ {3}npm test: \d+ s /m);
    expect(stderr).toMatch(
      /newcomer path FAILED in \d+ s:\n {3}clean: verdict regression, expected pass\|inconclusive$/m,
    );
  });
});
