import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "../../src/server/prometheus-text.js";
import { startSimulator } from "../../src/sim/index.js";
import { postStream } from "./sse-client.js";

const family = "sim:step_lateness_seconds";

async function scrape(baseUrl: string) {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const samples = parsePrometheusText(text);
  const value = (name: string, le?: string) =>
    samples
      .filter((sample) => sample.name === name && (le === undefined || sample.labels.le === le))
      .reduce((sum, sample) => sum + sample.value, 0);
  return { text, samples, value };
}

describe("the simulator's own lateness on /metrics", () => {
  it("exports sim:step_lateness_seconds, a simulator-only histogram of every step's lateness", async () => {
    const sim = await startSimulator({ seed: 1, set: { step_overhead_ms: 2 } });
    try {
      const before = await scrape(sim.baseUrl);
      expect(before.text).toContain(`# TYPE ${family} histogram`);
      expect(before.text).toMatch(/# HELP sim:step_lateness_seconds Simulator only \(not a vLLM metric\)/);
      expect(before.value(`${family}_count`)).toBe(0);
      expect(before.samples.some((sample) => sample.name.startsWith("vllm:step_lateness"))).toBe(false);
      await postStream(`${sim.baseUrl}/v1/completions`, {
        prompt: "a b c",
        max_tokens: 12,
        ignore_eos: true,
        stream: true,
      });
      const after = await scrape(sim.baseUrl);
      const steps = after.value(`${family}_count`);
      // 12 tokens: a prefill step and 11 decode steps, each handled once (late steps merged still count each).
      expect(steps).toBe(sim.loopLateness().count);
      expect(steps).toBeGreaterThanOrEqual(12);
      expect(after.value(`${family}_bucket`, "+Inf")).toBe(steps);
      expect(after.value(`${family}_sum`)).toBeGreaterThanOrEqual(0);
    } finally {
      await sim.close();
    }
  });

  it("counts the stalls of the fault_stall_ms fault as late steps, and hides the family with log stats disabled", async () => {
    const sim = await startSimulator({
      seed: 2,
      set: { step_overhead_ms: 5, fault_stall_ms: 120, fault_stall_every_steps: 3 },
    });
    try {
      await postStream(`${sim.baseUrl}/v1/completions`, {
        prompt: "a b c",
        max_tokens: 30,
        ignore_eos: true,
        stream: true,
      });
      const after = await scrape(sim.baseUrl);
      const steps = after.value(`${family}_count`);
      const onTime = after.value(`${family}_bucket`, "0.1");
      // Every third delivery blocks the process 120 ms: the step after it is handled >= 115 ms late. 30
      // tokens are at most 30 deliveries (fewer where a loaded machine merges late steps): up to 9 stalls.
      expect(steps - onTime).toBeGreaterThanOrEqual(3);
      expect(after.value(`${family}_sum`)).toBeGreaterThan(0.3);
      sim.configure({ disable_log_stats: true });
      expect((await scrape(sim.baseUrl)).samples.some((sample) => sample.name.startsWith("sim:"))).toBe(
        false,
      );
    } finally {
      await sim.close();
    }
  });
});
