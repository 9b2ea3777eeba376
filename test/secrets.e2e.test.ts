import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFilesRecursively } from "../src/github/files.js";
import { defaultCliCommand } from "../src/server/sim-command.js";
import { type RunningSimulator, startSimulator } from "../src/sim/index.js";
import { cli } from "./cli/helpers.js";
import { baseFingerprint, noisyRuns, writeResultsDir } from "./compare/fixtures.js";
import { expectNoPlantedSecret, plantedSecret } from "./secret-forms.js";

/**
 * A secret read through `${VAR}` (a variable whose name does not look secret) into server.argv,
 * server.args, model.revision and sampling.extra_body, and echoed by the server itself: `validate`,
 * `validate --json`, `run` against the simulator (command and sim kinds) and `compare` must not print or
 * write it anywhere, in any of the forms escaping gives it. Its distinctive core is searched for, so a
 * partly escaped copy (`mst\_SECRET555qq`) is found too.
 */

const secret = plantedSecret;
const expectClean = expectNoPlantedSecret;
const env = { DEPLOY_REF: secret, CONCURRENCY: "2", REQUESTS: "4", INPUT_TOKENS: "8" };

async function expectDirectoryClean(dir: string): Promise<string[]> {
  const files = await listFilesRecursively(dir);
  for (const file of files) expectClean(file, await readFile(file, "utf8"));
  return files;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const cell = `cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: "\${INPUT_TOKENS}", output_tokens: 4 }
    load: { type: concurrency, concurrency: "\${CONCURRENCY}" }
    size: { requests: "\${REQUESTS}" }
    warmup: { requests: 1 }
repeats: { min: 1, max: 2 }
`;
const modelAndSampling = `model:
  name: m
  revision: "\${DEPLOY_REF}"
sampling:
  extra_body: { user: "\${DEPLOY_REF}", "tenant.key": "\${DEPLOY_REF}" }
`;

let dir: string;
let commandConfig: string;
let simConfig: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "vpg-secrets-"));
  // A server that echoes its arguments (as vLLM's startup log does) and then serves: the simulator.
  const wrapper = join(dir, "echoing-server.mjs");
  await writeFile(
    wrapper,
    `import { spawn } from "node:child_process";
const [port, , key] = process.argv.slice(2);
console.log("args:", process.argv.slice(2).join(" "));
console.log("json args:", JSON.stringify(process.argv.slice(2)));
const child = spawn(${JSON.stringify(defaultCliCommand()[0])}, [...${JSON.stringify(defaultCliCommand().slice(1))}, "sim", "--port", port, "--api-key", key, "--served-model-name", "m"], { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
`,
  );
  const port = await freePort();
  commandConfig = join(dir, "command.yml");
  await writeFile(
    commandConfig,
    `version: 1
server:
  kind: command
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(wrapper)}, "${port}", --api-key, "\${DEPLOY_REF}", "--tag=\${DEPLOY_REF}"]
  port: ${port}
  api_key_env: DEPLOY_REF
  startup_timeout_s: 120
${modelAndSampling}${cell}`,
  );
  simConfig = join(dir, "sim.yml");
  await writeFile(
    simConfig,
    `version: 1
server:
  kind: sim
  args: [--api-key, "\${DEPLOY_REF}"]
  api_key_env: DEPLOY_REF
  startup_timeout_s: 120
${modelAndSampling}${cell}`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a secret read through ${VAR} never leaves", () => {
  it("validate and validate --json show templates (keys with dots too) and interpolate numbers", async () => {
    for (const file of [commandConfig, simConfig]) {
      const summary = await cli(["validate", "--config", file], { cwd: dir, env });
      const json = await cli(["validate", "--config", file, "--json"], { cwd: dir, env });
      expect(summary.code, summary.stderr).toBe(0);
      expect(json.code, json.stderr).toBe(0);
      for (const output of [summary, json]) expectClean(file, output.stdout + output.stderr);
      expect(summary.stdout).toContain("model:  m @ ${DEPLOY_REF}");
      expect(summary.stdout).toMatch(/concurrency \$\{CONCURRENCY\}\s+\$\{REQUESTS\} req/);
      expect(summary.stdout).toContain("synthetic in ${INPUT_TOKENS} / out 4");
      const shown = JSON.parse(json.stdout) as {
        model: { revision: string };
        sampling: { extra_body: Record<string, string> };
        cells: { size: { requests: unknown } }[];
      };
      expect(shown.model.revision).toBe("${DEPLOY_REF}");
      expect(shown.sampling.extra_body).toEqual({ user: "${DEPLOY_REF}", "tenant.key": "${DEPLOY_REF}" });
      expect(shown.cells[0]?.size.requests).toBe("${REQUESTS}");
    }
    const command = await cli(["validate", "--config", commandConfig], { cwd: dir, env });
    expect(command.stdout).toContain("--api-key ${DEPLOY_REF} --tag=${DEPLOY_REF}");
  });

  it("run (command and sim kinds) and compare write and print templates, never the value", async () => {
    const outputs: string[] = [];
    for (const [name, file] of [
      ["command", commandConfig],
      ["sim", simConfig],
    ] as const) {
      for (const side of ["base", "head"]) {
        const out = join(dir, `${name}-${side}`);
        const run = await cli(["run", "--config", file, "--out", out, "--runs", "1"], { cwd: dir, env });
        expect(run.code, run.stderr).toBe(0);
        outputs.push(run.stdout, run.stderr);
        const files = await expectDirectoryClean(out);
        const runFile = JSON.parse(await readFile(join(out, "chat", "run-0", "run.json"), "utf8")) as {
          requests: { total: number; completed: number };
          fingerprint: Record<string, unknown>;
        };
        // ${REQUESTS} and ${CONCURRENCY} were numbers to the runner, and the key authenticated.
        expect(runFile.requests).toMatchObject({ total: 4, completed: 4 });
        const fingerprint = JSON.stringify(runFile.fingerprint);
        expect(fingerprint).toContain('"revision":"${DEPLOY_REF}"');
        expect(fingerprint).toContain('"user":"${DEPLOY_REF}"');
        expect(fingerprint).toContain('"--api-key","${DEPLOY_REF}"');
        const log = files.find((path) => path.endsWith(".log"));
        expect(log, `server log among ${files.join(", ")}`).toBeDefined();
        const logText = await readFile(log!, "utf8");
        if (name === "command") {
          // The launcher's own line names the template; the server's echo of the value is redacted.
          expect(logText).toContain("starting: ");
          expect(logText).toContain("--api-key ${DEPLOY_REF} --tag=${DEPLOY_REF}");
          expect(logText).toMatch(/^args: .*--api-key \*\*\* --tag=\*\*\*$/m);
          expect(logText).toMatch(/^json args: .*"--api-key","\*\*\*","--tag=\*\*\*"\]$/m);
        }
      }
      const compareOut = join(dir, `${name}-compare`);
      for (const format of ["text", "markdown", "json", "html"]) {
        const compared = await cli(
          [
            "compare",
            "--baseline",
            join(dir, `${name}-base`),
            "--candidate",
            join(dir, `${name}-head`),
            "--config",
            file,
            "--out",
            compareOut,
            "--format",
            format,
          ],
          { cwd: dir, env },
        );
        expect(compared.code, compared.stderr).toBeLessThan(2);
        outputs.push(compared.stdout, compared.stderr);
      }
      const written = await expectDirectoryClean(compareOut);
      // Every file compare writes is checked, the charts of report.html among them.
      const names = written.map((path) => path.slice(compareOut.length + 1)).sort();
      expect(names.filter((name) => !name.startsWith("report-charts/"))).toEqual([
        "comment.md",
        "report.html",
        "report.md",
        "verdict.json",
      ]);
      // Which charts exist depends on which runs were usable (a loaded machine can make a run
      // client-bound); every file written, whichever, was checked above.
    }
    expectClean("the CLI's output", outputs.join("\n"));
  }, 240_000);

  it("compare redacts run files from outside before it escapes them (verdict.json, report.md, stdout)", async () => {
    // Runs recorded by an older version, or by a server that echoed the value into a note.
    const leaky = {
      ...baseFingerprint,
      server: { ...baseFingerprint.server, args: ["--api-key", secret] },
      model: { ...baseFingerprint.model, revision: secret },
    };
    const other = "vpg_otherSECRET555qq_value";
    const baseline = await writeResultsDir(join(dir, "leaky-base"), noisyRuns(5, { seed: 1 }));
    const candidate = await writeResultsDir(
      join(dir, "leaky-head"),
      noisyRuns(5, {
        seed: 2,
        fingerprint: leaky,
        flags: { notes: [`server said: key ${secret} / ${other}`] },
      }),
    );
    const out = join(dir, "leaky-compare");
    const outputs: string[] = [];
    for (const format of ["text", "markdown", "json"]) {
      const compared = await cli(
        [
          "compare",
          ...["--baseline", baseline, "--candidate", candidate, "--config", simConfig],
          ...["--out", out, "--format", format],
        ],
        // The config reads DEPLOY_REF; OTHER_API_KEY is redacted for its name alone.
        { cwd: dir, env: { ...env, OTHER_API_KEY: other } },
      );
      expect(compared.code, compared.stderr).toBeLessThan(2);
      outputs.push(compared.stdout, compared.stderr);
    }
    expectClean("compare's output", outputs.join("\n"));
    await expectDirectoryClean(out);
    const report = await readFile(join(out, "report.md"), "utf8");
    // The difference is still reported, with the value replaced before it was escaped.
    expect(report).toContain("- model.revision: abc123 (baseline) vs \\*\\*\\* (candidate)");
    expectClean("comment.md", await readFile(join(out, "comment.md"), "utf8"));
    const verdict = await readFile(join(out, "verdict.json"), "utf8");
    expect(verdict).toContain("***");
  });
});

/**
 * The server's API key read through `server.api_key_env` from a variable whose name does not look like
 * a credential (SERVE_KEY), and a proxy in front of the simulator that echoes the key it is sent: into
 * the error body of every third completion, into the version string and into an extra served model
 * name. `run` (the config's external server, and --base-url) and `compare` must not print or write it;
 * nor compare the runs a tool without redaction recorded through that proxy (the key in a note).
 */
describe("the key server.api_key_env names never leaves", () => {
  const key = plantedSecret;
  const keyEnv = { SERVE_KEY: key };
  let simulator: RunningSimulator;
  let proxy: Server;
  let proxyUrl = "";
  let keyConfig = "";

  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: key, model: "m", devMode: true });
    let completions = 0;
    proxy = createHttpServer((request, response) => {
      const sent = request.headers.authorization ?? "";
      const echo = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (request.method === "POST" && request.url?.endsWith("/completions") && ++completions % 3 === 0) {
        request.resume();
        return echo(500, { error: { message: `proxy: upstream refused credentials ${sent}` } });
      }
      const upstream = httpRequest(
        `${simulator.baseUrl}${request.url}`,
        { method: request.method, headers: request.headers },
        (answer) => {
          if (request.url === "/version" || request.url === "/v1/models") {
            let text = "";
            answer.setEncoding("utf8");
            answer.on("data", (chunk: string) => (text += chunk));
            answer.on("end", () => {
              const body = JSON.parse(text) as { version?: string; data?: unknown[] };
              if (body.version) body.version = `${body.version}+proxy ${sent}`;
              if (body.data) body.data.push({ id: `m-via ${sent}`, object: "model", max_model_len: 4096 });
              echo(answer.statusCode ?? 200, body);
            });
            return;
          }
          response.writeHead(answer.statusCode ?? 200, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const address = proxy.address();
    proxyUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    keyConfig = join(dir, "serve-key.yml");
    await writeFile(
      keyConfig,
      `version: 1
server:
  kind: external
  base_url: ${proxyUrl}
  api_key_env: SERVE_KEY
  startup_timeout_s: 60
model: { name: m }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 9 }
    warmup: { requests: 1 }
repeats: { min: 1, max: 2 }
`,
    );
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await simulator.close();
  });

  it("run and compare through an echoing proxy write and print no form of it", async () => {
    const outputs: string[] = [];
    for (const side of ["key-base", "key-head"]) {
      const out = join(dir, side);
      const run = await cli(["run", "--config", keyConfig, "--out", out, "--runs", "1", "--format", "vllm"], {
        cwd: dir,
        env: keyEnv,
      });
      expect(run.code, run.stderr).toBe(0);
      outputs.push(run.stdout, run.stderr);
      await expectDirectoryClean(out);
      const runFile = JSON.parse(await readFile(join(out, "chat", "run-0", "run.json"), "utf8")) as {
        requests: { failed: number };
        fingerprint: { server: { vllmVersion: string } };
      };
      // The proxy's echoes were there to be found: failed requests and the version it rewrote.
      expect(runFile.requests.failed).toBeGreaterThan(0);
      expect(runFile.fingerprint.server.vllmVersion).toContain("+proxy Bearer ${SERVE_KEY}");
    }
    // Runs of the same proxy recorded by a tool that does not redact: the key in a note and in the version.
    const leaky = join(dir, "key-leaky");
    await cp(join(dir, "key-head"), leaky, { recursive: true });
    const leakyRun = join(leaky, "chat", "run-0", "run.json");
    const recorded = JSON.parse(await readFile(leakyRun, "utf8")) as {
      flags: { notes: string[] };
      fingerprint: { server: { vllmVersion: string } };
    };
    recorded.flags.notes.push(`proxy said: upstream refused credentials Bearer ${key}`);
    recorded.fingerprint.server.vllmVersion = `0.11.0+proxy Bearer ${key}`;
    await writeFile(leakyRun, JSON.stringify(recorded, null, 2));
    for (const candidate of ["key-head", "key-leaky"]) {
      const out = join(dir, `${candidate}-compare`);
      for (const format of ["text", "markdown", "comment", "json"]) {
        const compared = await cli(
          [
            ...["compare", "--baseline", join(dir, "key-base"), "--candidate", join(dir, candidate)],
            ...["--config", keyConfig, "--out", out, "--format", format],
          ],
          { cwd: dir, env: keyEnv },
        );
        expect(compared.code, compared.stderr).toBeLessThan(2);
        outputs.push(compared.stdout, compared.stderr);
      }
      await expectDirectoryClean(out);
    }
    expect(await readFile(join(dir, "key-leaky-compare", "report.md"), "utf8")).toContain(
      "0.11.0+proxy Bearer \\*\\*\\*",
    );
    expectClean("the CLI's output", outputs.join("\n"));
  }, 240_000);

  it("--base-url's error naming the models served redacts the proxy's echo", async () => {
    const wrongModel = join(dir, "serve-key-wrong-model.yml");
    await writeFile(
      wrongModel,
      (await readFile(keyConfig, "utf8")).replace("model: { name: m }", "model: { name: other }"),
    );
    const out = join(dir, "key-wrong");
    const run = await cli(["run", "--config", wrongModel, "--base-url", proxyUrl, "--out", out], {
      cwd: dir,
      env: keyEnv,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('it serves "m", "m-via Bearer ***"');
    expectClean("run's error", run.stdout + run.stderr);
  });
});
