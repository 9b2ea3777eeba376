import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/main.js";
import { exportFormatNames, exportFormats } from "../../src/report/export-formats.js";
import { toolVersion } from "../../src/version.js";
import { cli } from "./helpers.js";

describe("vllm-perf-gate CLI", () => {
  it("prints usage on stderr and exits 2 without a command", async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Usage: vllm-perf-gate <command>/);
    for (const name of ["validate", "init", "sim", "run", "compare", "demo"])
      expect(result.stderr).toContain(`  ${name}`);
  });

  it("rejects an unknown command with usage on stderr and exit 2", async () => {
    const result = await cli(["benchmark"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command "benchmark"/);
    expect(result.stdout).toBe("");
  });

  it("prints its version", async () => {
    expect(await cli(["--version"])).toMatchObject({ code: 0, stdout: `${toolVersion}\n` });
    expect(await cli(["-V"])).toMatchObject({ code: 0, stdout: `${toolVersion}\n` });
  });

  for (const command of commands) {
    it(`${command.name} loads the command of its name`, async () => {
      expect((await command.load()).name).toBe(command.name);
    });

    it(`${command.name} --help prints its usage on stdout`, async () => {
      const result = await cli([command.name, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`vllm-perf-gate ${command.name}`);
      expect(result.stderr).toBe("");
    });

    it(`${command.name} rejects an unknown flag with its usage and exit 2`, async () => {
      const result = await cli([command.name, "--no-such-flag"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--no-such-flag/);
      expect(result.stderr).toContain(`vllm-perf-gate ${command.name}`);
    });
  }
});

describe("init and validate", () => {
  it("writes the matrix-18 preset and validate lists its 19 cells", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-init-"));
    const init = await cli(["init", "--preset", "matrix-18"], { cwd: dir });
    expect(init.code).toBe(0);
    const text = await readFile(join(dir, "vllm-perf-gate.yml"), "utf8");
    expect(text).toMatch(/^# yaml-language-server: \$schema=\S+vllm-perf-gate\.schema\.json\n/);
    const validate = await cli(["validate"], { cwd: dir });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(/19 cells:/);
    const cellLines = validate.stdout
      .split("\n")
      .filter((line) => /^ {2}(chat|rag|longgen|spike)/.test(line));
    expect(cellLines).toHaveLength(19);
    expect(validate.stdout).toMatch(/estimated GPU-minutes \(measured runs plus every server start\)/);
    // The wall-clock of the first look: on one device every start and run one after the other; on 8
    // devices (the plan of app/measure-on-devices.ts) a fraction of it, at more starts (two per device).
    const wall = (text: string) => Number(/per PR, interleaved: (\d+) min at \d+ runs/.exec(text)?.[1]);
    expect(validate.stdout).toContain("estimated wall-clock of the first look on 1 device");
    const eight = await cli(["validate", "--devices", "8"], { cwd: dir });
    expect(eight.code).toBe(0);
    expect(eight.stdout).toMatch(/first look on 8 devices \(--devices;/);
    // repeats.block auto: a start costs little beside a run of 19 cells (fewer than two runs a start by
    // Kalibera and Jones), so every run of a side gets a start of its own: 10 starts a device at 5 runs.
    expect(eight.stdout).toMatch(/per PR, interleaved: \d+ min at \d+ runs \(80 starts,/);
    expect(wall(eight.stdout)).toBeLessThan(wall(validate.stdout) / 6);
    expect((await cli(["validate", "--devices", "0"], { cwd: dir })).code).toBe(2);
    // The run plan: its basis, its runs and cost per mode, every start counted, and what it is against.
    expect(validate.stdout).toMatch(/run plan \(sized by information; basis: prior/);
    expect(validate.stdout).toMatch(
      /per PR, interleaved \(both sides\): \d+ GPU-minutes at \d+ runs a side \(\d+ starts\)/,
    );
    expect(validate.stdout).toMatch(/the config's runs as declared: \S+ at \d+ runs/);
  });

  it("refuses to overwrite without --force", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-init-"));
    expect((await cli(["init"], { cwd: dir })).code).toBe(0);
    const again = await cli(["init"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists; pass --force/);
    expect((await cli(["init", "--force", "--preset", "rag"], { cwd: dir })).code).toBe(0);
  });

  it("rejects an unknown preset", async () => {
    const result = await cli(["init", "--preset", "chatty"], { cwd: await mkdtemp(join(tmpdir(), "vpg-")) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown preset "chatty"; expected one of: chat, rag, batch, matrix-18/);
  });

  it("exits 2 with every problem and no stack trace on a bad config", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-bad-"));
    await writeFile(
      join(dir, "bad.yml"),
      "version: 1\nserver: { kind: sim }\nmodel: { name: m }\ncells:\n  - { name: a, dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }, load: { type: rate, rate: fast }, size: { requests: 0 } }\n",
    );
    const result = await cli(["validate", "--config", "bad.yml"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.yml: 2 problems in the config/);
    expect(result.stderr).toMatch(/cells\[0\]\.load\.rate: expected a positive number, got "fast"/);
    expect(result.stderr).toMatch(/cells\[0\]\.size\.requests: expected a whole number >= 1, got 0/);
    expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it("names a missing file", async () => {
    const result = await cli(["validate", "--config", "nope.yml"], {
      cwd: await mkdtemp(join(tmpdir(), "vpg-")),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nope\.yml: cannot read the config \(no such file\)/);
  });

  it("never prints a value that came from the environment", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-env-"));
    await writeFile(
      join(dir, "c.yml"),
      "version: 1\nserver: { kind: external, base_url: '${SECRET_URL}' }\nmodel: { name: m }\ncells:\n  - { name: a, dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }, load: { type: concurrency, concurrency: 1 }, size: { requests: 1 } }\n",
    );
    const env = { SECRET_URL: "https://vllm-hunter2.internal/tenant-hunter2" };
    const summary = await cli(["validate", "--config", "c.yml"], { cwd: dir, env });
    const json = await cli(["validate", "--config", "c.yml", "--json"], { cwd: dir, env });
    expect(summary.code).toBe(0);
    expect(json.code).toBe(0);
    for (const output of [summary.stdout, json.stdout]) {
      expect(output).not.toContain("hunter2");
      expect(output).toContain("${SECRET_URL}");
    }
  });

  it("refuses a base_url with credentials, without printing them, and says to use api_key_env", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-env-"));
    await writeFile(
      join(dir, "c.yml"),
      "version: 1\nserver: { kind: external, base_url: 'https://user:${PASS}@vllm.internal' }\nmodel: { name: m }\ncells:\n  - { name: a, dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }, load: { type: concurrency, concurrency: 1 }, size: { requests: 1 } }\n",
    );
    const result = await cli(["validate", "--config", "c.yml"], {
      cwd: dir,
      env: { PASS: "hunter2hunter2" },
    });
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).not.toContain("hunter2");
    expect(result.stderr).toMatch(
      /c\.yml:2:\d+ server\.base_url: credentials in the URL \(user:password@host\) are not supported.*server\.api_key_env/,
    );
  });

  it("names every registered export format, with its file, in the --format help of run and compare", async () => {
    // The help text is written by hand: a format added to the registry must be described there too.
    for (const name of ["run", "compare"]) {
      const { usage } = await commands.find((command) => command.name === name)!.load();
      const help = usage.replace(/\s+/g, " ");
      for (const format of exportFormatNames)
        expect(help, `${name} --help`).toContain(`${format} (${exportFormats[format].fileName}`);
    }
  });
});
