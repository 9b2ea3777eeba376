import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";
import { knobNames } from "../../src/sim/profile.js";
import { postJson } from "../sim/sse-client.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

function fakeIo(env: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env,
    cwd: repo,
    out: () => out,
    err: () => err,
  };
}

/** Starts `vllm-perf-gate sim` as a real process and waits for its listening line. */
async function spawnSim(
  args: string[],
): Promise<{ child: ChildProcess; baseUrl: string; stderr: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "sim", ...args], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout!.on("data", (data: Buffer) => {
      stdout += data.toString();
      const match = /^vllm-perf-gate sim listening on (http:\/\/\S+)\n/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`sim exited ${code} before listening: ${stderr}`)));
  });
  return { child, baseUrl, stderr: () => stderr };
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

describe("vllm-perf-gate sim (in-process)", () => {
  it("--help documents profiles, every knob, faults and the admin endpoint", async () => {
    const io = fakeIo();
    expect(await runCli(["sim", "--help"], io)).toBe(0);
    for (const name of [
      "small-gpu",
      "noiseless",
      "tiny-kv",
      "fp8-kv",
      "/admin/config",
      "--fault",
      "exit-after:N",
      ...knobNames,
    ]) {
      expect(io.out()).toContain(name);
    }
  });

  it("--list-profiles prints the built-in profiles", async () => {
    const io = fakeIo();
    expect(await runCli(["sim", "--list-profiles"], io)).toBe(0);
    expect(io.out()).toMatch(/^ {2}small-gpu/m);
  });

  it("rejects a bad --set, --fault or flag with exit 2 and a message naming it", async () => {
    const unknown = fakeIo();
    expect(await runCli(["sim", "--set", "warp_speed=9"], unknown)).toBe(2);
    expect(unknown.err()).toContain('unknown knob "warp_speed"');
    const badValue = fakeIo();
    expect(await runCli(["sim", "--set", "max_num_seqs=lots"], badValue)).toBe(2);
    expect(badValue.err()).toContain('field "max_num_seqs"');
    const badFault = fakeIo();
    expect(await runCli(["sim", "--fault", "error:503:2"], badFault)).toBe(2);
    expect(badFault.err()).toContain("rate between 0 and 1");
    const badVersion = fakeIo();
    expect(await runCli(["sim", "--set", "vllm_version=0.9.2"], badVersion)).toBe(2);
    expect(badVersion.err()).toContain('field "vllm_version": expected a vLLM version of 0.10 or later');
    // vLLM refuses to start when the KV cache cannot hold one max_model_len request.
    const smallKv = fakeIo();
    expect(
      await runCli(
        ["sim", "--port", "0", "--num-gpu-blocks-override", "64", "--max-model-len", "4096"],
        smallKv,
      ),
    ).toBe(2);
    expect(smallKv.err()).toContain("estimated maximum model length is 1024");
    const badFlag = fakeIo();
    expect(await runCli(["sim", "--warp"], badFlag)).toBe(2);
    expect(badFlag.err()).toContain("Usage: vllm-perf-gate sim");
  });

  it("a profile file error names the file and the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-profile-"));
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "schemaVersion: 1\nbase: small-gpu\nknobs:\n  decode_per_seq_ms: -1\n");
    const io = fakeIo();
    expect(await runCli(["sim", "--profile", file], io)).toBe(2);
    expect(io.err()).toContain(file);
    expect(io.err()).toContain('field "knobs.decode_per_seq_ms"');
  });
});

describe("vllm-perf-gate sim (a real process)", () => {
  it("takes vllm serve's engine flags, serves, and exits 0 on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-profile-"));
    const file = join(dir, "p.json");
    writeFileSync(
      file,
      JSON.stringify({ schemaVersion: 1, base: "noiseless", knobs: { step_overhead_ms: 1 } }),
    );
    const { child, baseUrl } = await spawnSim([
      "--port",
      "0",
      "--profile",
      file,
      "--model",
      "Qwen/Qwen3-0.6B",
      "--served-model-name",
      "served",
      "--max-num-seqs",
      "7",
      "--max-model-len",
      "1k",
      "--no-enable-prefix-caching",
      "--kv-cache-dtype",
      "fp8",
      "--tensor-parallel-size",
      "1",
      "--set",
      "decode_per_seq_ms=0.5",
    ]);
    try {
      expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
      const config = (await (await fetch(`${baseUrl}/admin/config`)).json()) as {
        profile: Record<string, unknown>;
        model: string;
      };
      expect(config.model).toBe("served");
      expect(config.profile).toMatchObject({
        max_num_seqs: 7,
        max_model_len: 1024,
        enable_prefix_caching: false,
        cache_dtype: "fp8",
        step_overhead_ms: 1,
        decode_per_seq_ms: 0.5,
        speed_sigma: 0,
      });
      const r = await postJson(`${baseUrl}/v1/completions`, {
        model: "served",
        prompt: "a b",
        max_tokens: 2,
      });
      expect(r.status).toBe(200);
      child.kill("SIGTERM");
      expect(await exitCode(child)).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("vllm-perf-gate sim (in-process run)", () => {
  it("prints the listening line, serves, and returns 1 when an injected fault kills the engine", async () => {
    const io = fakeIo({ VLLM_API_KEY: "k" });
    const exit = runCli(["sim", "--port", "0", "--fault", "exit-after:1"], io);
    let baseUrl: string | undefined;
    for (let i = 0; i < 200 && !baseUrl; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      baseUrl = /^vllm-perf-gate sim listening on (http:\/\/\S+)\n$/.exec(io.out())?.[1];
    }
    expect(baseUrl).toBeDefined();
    expect((await postJson(`${baseUrl}/v1/completions`, { prompt: "a" })).status).toBe(401);
    const r = await postJson(
      `${baseUrl}/v1/completions`,
      { prompt: "a", max_tokens: 1 },
      { authorization: "Bearer k" },
    );
    expect(r.status).toBe(200);
    expect(await exit).toBe(1);
    expect(io.err()).toContain("exits after 1 requests");
  });
});
