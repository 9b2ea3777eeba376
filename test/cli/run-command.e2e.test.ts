import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

function fakeIo(cwd: string, tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text), isTTY: false },
    stderr: { write: (text: string) => err.push(text), isTTY: tty },
    env: {},
    cwd,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

const config = `version: 1
server: { kind: external, base_url: "http://127.0.0.1:1" }
model: { name: m }
cells:
  - name: small
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 6 }
    warmup: { requests: 2 }
  - name: other
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: rate, rate: 50 }
    size: { requests: 4 }
`;

describe("vllm-perf-gate run", () => {
  it("runs the chosen cells N times against --base-url and writes the results layout", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-cli-"));
    writeFileSync(join(dir, "gate.yml"), config);
    const { io, out, err } = fakeIo(dir);
    const code = await runCli(
      [
        "run",
        "--config",
        "gate.yml",
        "--out",
        "results",
        "--base-url",
        server.baseUrl,
        "--cells",
        "small",
        "--runs",
        "2",
        "--format",
        "vllm",
      ],
      io,
    );
    expect(err()).not.toMatch(/unexpected/);
    expect(code).toBe(0);
    expect(out()).toMatch(/wrote 2 run\(s\)/);
    expect(err()).toMatch(/small run-0: 6\/6 ok/);
    expect(readdirSync(join(dir, "results"))).toEqual(["small"]);
    for (const run of ["run-0", "run-1"]) {
      const files = readdirSync(join(dir, "results", "small", run)).sort();
      expect(files).toEqual([
        "requests.jsonl",
        "run.json",
        "scrapes.jsonl",
        "vllm-result.json",
        "warmup.jsonl",
      ]);
      const file = runFileSchema.parse(
        JSON.parse(readFileSync(join(dir, "results", "small", run, "run.json"), "utf8")),
      );
      expect(file.requests).toMatchObject({ total: 6, completed: 6, warmup: 2 });
      expect(file.fingerprint).toMatchObject({ server: { kind: "external", vllmVersion: "0.0.0-fake" } });
    }
  });

  it("refuses a second run into the same --out, and adds runs after the existing ones with --append", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-cli-"));
    writeFileSync(join(dir, "gate.yml"), config);
    const argv = ["run", "-c", "gate.yml", "-o", "r", "--base-url", server.baseUrl, "--cells", "small"];
    expect(await runCli([...argv, "--runs", "2"], fakeIo(dir).io)).toBe(0);
    const before = readFileSync(join(dir, "r", "small", "run-0", "run.json"), "utf8");
    const again = fakeIo(dir);
    expect(await runCli([...argv, "--runs", "1"], again.io)).toBe(2);
    expect(again.err()).toContain(`${join(dir, "r", "small")} (2 run(s), up to run-1)`);
    expect(again.err()).toMatch(/nothing was run\. Add --append/);
    expect(readFileSync(join(dir, "r", "small", "run-0", "run.json"), "utf8")).toBe(before);
    const appended = fakeIo(dir);
    expect(await runCli([...argv, "--runs", "2", "--append"], appended.io)).toBe(0);
    expect(appended.err()).toContain(
      `--append: adding runs after the existing ones in ${join(dir, "r")}: small from run-2`,
    );
    expect(appended.err()).toContain("small: run-2 (1 of 2) against");
    expect(appended.err()).toContain("small: run-3 (2 of 2) against");
    expect(appended.err()).toMatch(/small run-3: 6\/6 ok/);
    expect(
      readdirSync(join(dir, "r", "small"))
        .filter((name) => name.startsWith("run-"))
        .sort(),
    ).toEqual(["run-0", "run-1", "run-2", "run-3"]);
    expect(readFileSync(join(dir, "r", "small", "run-0", "run.json"), "utf8")).toBe(before);
    const third = runFileSchema.parse(
      JSON.parse(readFileSync(join(dir, "r", "small", "run-3", "run.json"), "utf8")),
    );
    expect(third.run).toBe(3);
  });

  it("draws a live bar on a TTY and is silent with --quiet", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-cli-"));
    writeFileSync(join(dir, "gate.yml"), config);
    const tty = fakeIo(dir, true);
    expect(
      await runCli(
        ["run", "-c", "gate.yml", "-o", "a", "--base-url", server.baseUrl, "--runs", "1", "--cells", "other"],
        tty.io,
      ),
    ).toBe(0);
    expect(tty.err()).toMatch(/\r\x1b\[2K\[#+-*\] \[other run-0 \(1 of 1\)\]/);
    const quiet = fakeIo(dir);
    expect(
      await runCli(
        ["run", "-c", "gate.yml", "-o", "b", "--base-url", server.baseUrl, "--runs", "1", "-q"],
        quiet.io,
      ),
    ).toBe(0);
    expect(quiet.err()).toBe("");
    expect(quiet.out()).toBe("");
  });

  it("rejects bad input with exit 2 and a message naming what was wrong", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-cli-"));
    writeFileSync(join(dir, "gate.yml"), config);
    const missingOut = fakeIo(dir);
    expect(await runCli(["run", "--config", "gate.yml"], missingOut.io)).toBe(2);
    expect(missingOut.err()).toMatch(/--out DIR is required/);
    const badFormat = fakeIo(dir);
    expect(await runCli(["run", "-c", "gate.yml", "-o", "x", "--format", "csv"], badFormat.io)).toBe(2);
    expect(badFormat.err()).toMatch(/--format expects vllm, pytorch, bencher \(comma-separated\), got "csv"/);
    const badCell = fakeIo(dir);
    server = await startFakeServer();
    expect(
      await runCli(
        ["run", "-c", "gate.yml", "-o", "x", "--base-url", server.baseUrl, "--cells", "nope"],
        badCell.io,
      ),
    ).toBe(2);
    expect(badCell.err()).toMatch(/no cell named "nope"/);
    const unreachable = fakeIo(dir);
    expect(
      await runCli(
        ["run", "-c", "gate.yml", "-o", "x", "--base-url", "http://127.0.0.1:1", "-q"],
        unreachable.io,
      ),
    ).toBe(1);
    expect(unreachable.err()).toMatch(/--base-url http:\/\/127\.0\.0\.1:1: GET \/v1\/models failed/);
    writeFileSync(
      join(dir, "other-model.yml"),
      config.replace("model: { name: m }", "model: { name: llama }"),
    );
    const wrongModel = fakeIo(dir);
    expect(
      await runCli(
        ["run", "-c", "other-model.yml", "-o", "x", "--base-url", server.baseUrl, "-q"],
        wrongModel.io,
      ),
    ).toBe(2);
    expect(wrongModel.err()).toMatch(/model\.name: "llama" is not served at .*; it serves "m"/);
    const help = fakeIo(dir);
    expect(await runCli(["run", "--help"], help.io)).toBe(0);
    expect(help.out()).toMatch(/--format LIST .*\n.*vllm \(vllm-result.json/);
  });
});
