import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { cli } from "./helpers.js";

/**
 * The cache state of `prefix: fresh` runs against a server that ignores `cache_salt` and refuses the
 * reset: the simulator (reset enabled, salt honoured) behind a loopback proxy that drops `cache_salt`
 * from every request body and answers POST /reset_prefix_cache with 404, as a long-lived deployment
 * behind a gateway would. A cell's second run then finds its first run's prompts in the cache: the
 * check flags it and makes it unusable. The same cells straight against the simulator pass, and a trace
 * cell, whose requests share prefix blocks by design, says "not checked" instead of passing.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-cache-"));
let sim: RunningSimulator;
let proxy: Server;

/** Forwards to the simulator, without cache_salt and without the reset. */
function saltStrippingProxy(target: number): Server {
  return createServer((req, res) => {
    if (req.url === "/reset_prefix_cache") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"detail":"Not Found"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (body.length > 0 && req.headers["content-type"]?.includes("json")) {
        const parsed = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
        delete parsed.cache_salt;
        body = Buffer.from(JSON.stringify(parsed));
      }
      const headers = { ...req.headers, "content-length": String(body.length) };
      const upstream = request(
        { host: "127.0.0.1", port: target, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
}

const trace = [0, 40, 80, 120, 160, 200]
  .map((timestamp, i) =>
    JSON.stringify({ timestamp, input_length: 96, output_length: 8, hash_ids: [0, 1, 10 + i] }),
  )
  .join("\n");

const config = (baseUrl: string) => `version: 1
server: { kind: external, base_url: "${baseUrl}", startup_timeout_s: 30 }
model: { name: sim-model }
cells:
  - name: plain
    endpoint: completions
    dataset: { type: synthetic, input_tokens: 192, output_tokens: 8 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 24 }
    warmup: { requests: 2 }
  - name: groups
    endpoint: completions
    dataset: { type: shared_prefix, num_prefixes: 2, prefix_tokens: 64, suffix_tokens: 192, output_tokens: 8 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 24 }
    warmup: { requests: 2 }
  - name: agent
    endpoint: chat
    dataset: { type: sessions, turns: 3, system_prompt_tokens: 64, shared_system_prompt: 1, message_tokens: 48, output_tokens: 8, think_time_s: 0 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 6 }
    warmup: { requests: 1 }
  - name: trace
    endpoint: chat
    dataset: { type: mooncake_trace, path: trace.jsonl, block_tokens: 32 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 6 }
    warmup: { requests: 1 }
repeats: { min: 2, max: 2 }
# The simulator shares this test's process and the machine is shared: lateness is not this test's point.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 200, max_server_lateness_ms: 5000 }
`;

function readRun(out: string, cell: string, run: number): RunFile {
  return runFileSchema.parse(
    JSON.parse(readFileSync(join(dir, out, cell, `run-${run}`, "run.json"), "utf8")),
  );
}

beforeAll(async () => {
  sim = await startSimulator({
    profile: "small-gpu",
    devMode: true,
    seed: 3,
    // cached_tokens in the usage: the sessions' first-turn check reads them.
    set: { enable_prompt_tokens_details: true },
  });
  proxy = saltStrippingProxy(sim.port);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  writeFileSync(join(dir, "trace.jsonl"), `${trace}\n`);
});

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the cache state of fresh runs", () => {
  it("flags the second run behind a salt-stripping, reset-refusing proxy, and says not checked for a trace", async () => {
    const port = (proxy.address() as AddressInfo).port;
    writeFileSync(join(dir, "proxy.yml"), config(`http://127.0.0.1:${port}`));
    const run = await cli(["run", "--config", "proxy.yml", "--out", "proxy"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    for (const cell of ["plain", "groups"]) {
      const first = readRun("proxy", cell, 0);
      const second = readRun("proxy", cell, 1);
      const details = JSON.stringify([first.cacheCheck, second.cacheCheck, first.flags.notes]);
      // The first run found only what its own requests share; the proxy refused the reset.
      expect(first.prefix, details).toMatchObject({ policy: "fresh", cacheReset: false });
      expect(first.cacheCheck!.status, details).toBe("passed");
      expect(first.flags.unusableReasons ?? [], details).toEqual([]);
      // The second found the first run's prompts: flagged, unusable, and said on the summary line.
      expect(second.cacheCheck!.status, details).toBe("flagged");
      expect(second.cacheCheck!.hitRate!, details).toBeGreaterThan(second.cacheCheck!.designedHitRate! + 0.3);
      expect(second.flags.unusableReasons!.join(" "), details).toMatch(
        /^warm cache in a prefix: fresh run: prefix-cache hit rate \d+\.\d% \(the server's counters\) against at most \d+\.\d% its dataset shares by design .*it ignores cache_salt, and the reset was refused/,
      );
      expect(run.stderr).toMatch(
        new RegExp(`${cell} run-1: .*UNUSABLE \\(warm cache in a prefix: fresh run`),
      );
    }
    // Sessions: their first turns found their own first messages cached.
    const agent = [readRun("proxy", "agent", 0), readRun("proxy", "agent", 1)];
    expect(agent[0]!.cacheCheck!.status, JSON.stringify(agent[0]!.cacheCheck)).toBe("passed");
    expect(agent[1]!.sessions!.contamination).toMatchObject({ checked: true, flagged: true });
    expect(agent[1]!.cacheCheck!.status).toBe("flagged");
    expect(agent[1]!.flags.unusableReasons!.join(" ")).toMatch(
      /6 of 6 sessions' first turns were served from the prefix cache beyond the common system prompt/,
    );
    // The shared-prefix cell's first run did hit the cache: its groups' prefixes, as designed.
    expect(readRun("proxy", "groups", 0).cacheCheck!.hitRate!).toBeGreaterThan(0.1);

    // A trace shares prefix blocks by design: neither check ran, and neither says it passed.
    const traced = readRun("proxy", "trace", 1);
    expect(traced.sessions!.contamination).toMatchObject({ checked: false, flagged: false });
    expect(traced.cacheCheck).toMatchObject({ status: "not-checked", designedHitRate: null });
    expect(traced.cacheCheck!.reason).toContain("hash_ids");
    expect(traced.flags.notes.join("\n")).toContain("cache state not checked: a trace's requests share");
  }, 180_000);

  it("passes the same cells straight against the simulator, and compare leaves the flagged runs out", async () => {
    writeFileSync(join(dir, "direct.yml"), config(`http://127.0.0.1:${sim.port}`));
    const run = await cli(
      ["run", "--config", "direct.yml", "--out", "direct", "--cells", "plain,groups,agent"],
      {
        cwd: dir,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    for (const cell of ["plain", "groups", "agent"])
      for (const k of [0, 1]) {
        const file = readRun("direct", cell, k);
        expect(file.prefix.cacheReset).toBe(true);
        expect(file.cacheCheck!.status, JSON.stringify(file.cacheCheck)).toBe("passed");
      }
    expect(readRun("direct", "plain", 1).cacheCheck!.hitRate!).toBeLessThan(0.05);

    // Compare leaves the flagged runs out, naming the reason.
    const compare = await cli(
      ["compare", "--baseline", "direct", "--candidate", "proxy", "--config", "direct.yml", "--out", "cmp"],
      { cwd: dir },
    );
    const verdict = verdictFileSchema.parse(JSON.parse(readFileSync(join(dir, "cmp/verdict.json"), "utf8")));
    const excluded = verdict.runs.excluded.filter((run) =>
      run.reasons.some((reason) => reason.startsWith("warm cache")),
    );
    expect(
      excluded.map((run) => `${run.side} ${run.cell} run-${run.run}`).sort(),
      `${compare.stderr}\n${JSON.stringify(excluded)}`,
    ).toEqual(["candidate agent run-1", "candidate groups run-1", "candidate plain run-1"]);
  }, 120_000);
});
