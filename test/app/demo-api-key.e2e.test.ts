import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { demoSides, runDemo } from "../../src/app/demo.js";
import { jobOutbound } from "../../src/app/job-outbound.js";
import { scenarios } from "../../src/demo/scenarios.js";

const work = mkdtempSync(join(tmpdir(), "vpg-demo-key-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("the demo with VLLM_API_KEY set (as most vLLM users have it)", () => {
  it("its simulators serve its client, which sends no key, and the key is written and printed nowhere", async () => {
    // A key meant for some other vLLM server. The demo's client sends no key, so the demo's simulators
    // (which read VLLM_API_KEY, as vLLM does) must not inherit it: they answered HTTP 401 to
    // GET /v1/models and the demo stopped before its first run.
    const planted = "sk-demo-planted-0f9e8d7c6b5a";
    const lines: string[] = [];
    const outDir = join(work, "demo");
    // The demo as `vllm-perf-gate demo` runs it, stopped once its first run has finished (a whole demo
    // takes minutes): the first server started, became ready and served every request of the run.
    const stop = new AbortController();
    // The demo's root as `demo` builds it: its configs loaded with the environment its set is built from.
    const env = { ...process.env, VLLM_API_KEY: planted };
    const sides = demoSides(scenarios.clean, outDir, env);
    const outbound = jobOutbound({ env, configs: sides.map((side) => side.loaded) });
    const result = await runDemo({
      scenario: scenarios.clean,
      sides,
      outbound,
      outDir,
      color: false,
      progress: {
        update() {},
        message: (line) => {
          lines.push(line);
          if (line.startsWith("chat run-0:")) stop.abort("the first run finished");
        },
      },
      env,
      signal: stop.signal,
    });
    expect(result).toMatchObject({ interrupted: "the first run finished" });
    expect((result as { runsWritten: number }).runsWritten).toBeGreaterThanOrEqual(1);
    const run = JSON.parse(readFileSync(join(outDir, "baseline", "chat", "run-0", "run.json"), "utf8"));
    expect(run.requests.total).toBeGreaterThan(0);
    expect(run.requests).toMatchObject({ completed: run.requests.total, failed: 0 });
    expect(lines.join("\n")).not.toContain(planted);
    for (const file of filesUnder(outDir)) expect(readFileSync(file, "utf8"), file).not.toContain(planted);
  });
});
