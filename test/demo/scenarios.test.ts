import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import { demoConfigText, scenarioNames, scenarios } from "../../src/demo/scenarios.js";
import { applyOverrides, coerceOverrides, effectiveCosts, resolveProfile } from "../../src/sim/profile.js";

function sideConfig(name: (typeof scenarioNames)[number], side: "baseline" | "candidate") {
  return parseConfigText(demoConfigText(scenarios[name], side, 1000), `${name}-${side}.yml`, { env: {} })
    .config;
}

function sideProfile(name: (typeof scenarioNames)[number], side: "baseline" | "candidate") {
  const set = side === "baseline" ? scenarios[name].baselineSet : scenarios[name].candidateSet;
  return applyOverrides(resolveProfile("small-gpu"), coerceOverrides(set));
}

describe("demo scenarios", () => {
  for (const name of scenarioNames) {
    for (const side of ["baseline", "candidate"] as const) {
      it(`${name} (${side}) is a valid config whose every fixed-load cell gates its p95s`, () => {
        const config = sideConfig(name, side);
        if (scenarios[name].workload === "capacity") {
          // A capacity cell is judged on its capacity at the SLOs, read at each run's percentile.
          expect(config.cells.map((cell) => cell.capacity !== undefined)).toEqual([true]);
          expect(config.cells[0]!.slo).toEqual({ ttft_ms: 300, tpot_ms: 80 });
          return;
        }
        for (const cell of config.cells) {
          // Fewer measured requests than gate.min_requests.p95 would leave the p95s advisory: the demo
          // would then show a verdict without the metrics its story is about.
          expect(cell.size).toHaveProperty("requests");
          const units = (cell.size as { requests: number }).requests;
          // A session dataset's size counts sessions; each sends its fixed number of turns as requests.
          const requests = cell.dataset.type === "sessions" ? units * (cell.dataset.turns as number) : units;
          expect(requests, `${name} ${side} cell ${cell.name}`).toBeGreaterThanOrEqual(
            config.gate.min_requests.p95,
          );
        }
      });
    }
  }

  it("the simulated steps are long against a loaded machine's CPU stalls (tens of ms)", () => {
    // The fixed step cost sets the scale of every latency (TTFT p95 about 2 steps in the open-loop
    // cells); at 1 ms steps a 20-60 ms stall moved TTFT p95 by 2-7x and the clean scenario could not pass.
    for (const name of scenarioNames) {
      for (const side of ["baseline", "candidate"] as const) {
        expect(sideProfile(name, side).step_overhead_ms).toBeGreaterThanOrEqual(25);
      }
    }
  });

  it("every server start draws its own speed: about 1% on every step and 3% more on prefill (flaky: 15%)", () => {
    for (const name of scenarioNames) {
      for (const side of ["baseline", "candidate"] as const) {
        const profile = sideProfile(name, side);
        expect(profile.speed_sigma, `${name} ${side}`).toBe(name === "flaky" ? 0.15 : 0.01);
        expect(profile.prefill_speed_sigma, `${name} ${side}`).toBe(0.03);
      }
    }
    // The fixed-load cells restart the simulator for every run, each start from its own seed.
    expect(sideConfig("clean", "baseline").server).toMatchObject({ kind: "sim", lifecycle: "per-run" });
  });

  it("clean and flaky compare a server with itself", () => {
    expect(scenarios.clean.candidateSet).toEqual(scenarios.clean.baselineSet);
    expect(scenarios.flaky.candidateSet).toEqual(scenarios.flaky.baselineSet);
  });

  it("capacity makes every decode step 20% cheaper, 8 sequences at a time on both sides", () => {
    const base = sideProfile("capacity", "baseline");
    const cand = sideProfile("capacity", "candidate");
    expect(cand.step_overhead_ms / base.step_overhead_ms).toBeCloseTo(0.8, 10);
    expect(cand.decode_per_seq_ms / base.decode_per_seq_ms).toBeCloseTo(0.8, 10);
    expect([base.max_num_seqs, cand.max_num_seqs]).toEqual([8, 8]);
  });

  it("regression makes every decode step 25% slower", () => {
    const base = sideProfile("regression", "baseline");
    const cand = sideProfile("regression", "candidate");
    expect(cand.step_overhead_ms / base.step_overhead_ms).toBeCloseTo(1.25, 10);
    expect(cand.decode_per_seq_ms / base.decode_per_seq_ms).toBeCloseTo(1.25, 10);
    expect(cand.prefill_per_token_ms).toBe(base.prefill_per_token_ms);
  });

  it("tradeoff makes prefill dearer and decode cheaper (fp8 KV cache)", () => {
    const base = effectiveCosts(sideProfile("tradeoff", "baseline"));
    const cand = effectiveCosts(sideProfile("tradeoff", "candidate"));
    expect(cand.prefillPerTokenMs).toBeGreaterThan(base.prefillPerTokenMs);
    expect(cand.decodePerSeqMs).toBeLessThan(base.decodePerSeqMs);
    expect(cand.numGpuBlocks).toBeGreaterThan(base.numGpuBlocks);
  });

  it("sessions shrinks the candidate's KV cache and makes each step 10% cheaper, and gates the deepest turns", () => {
    const base = effectiveCosts(sideProfile("sessions", "baseline"));
    const cand = effectiveCosts(sideProfile("sessions", "candidate"));
    expect(cand.numGpuBlocks).toBeLessThan(base.numGpuBlocks / 4);
    const baseProfile = sideProfile("sessions", "baseline");
    const candProfile = sideProfile("sessions", "candidate");
    expect(candProfile.step_overhead_ms / baseProfile.step_overhead_ms).toBeCloseTo(0.9, 10);
    expect(candProfile.prefill_per_token_ms).toBe(baseProfile.prefill_per_token_ms);
    for (const side of ["baseline", "candidate"] as const) {
      const config = sideConfig("sessions", side);
      expect(config.cells.map((cell) => cell.dataset.type)).toEqual(["synthetic", "sessions"]);
      expect(config.gate.metrics).toContain("ttft_p95_depth_8_up");
      // The deepest bucket holds turns 8 and up of every session: enough requests per run for its p95 to
      // be gated (compare counts the bucket's own requests against gate.min_requests.p95).
      const sessions = config.cells[1]!;
      const turns = sessions.dataset.type === "sessions" ? sessions.dataset.turns : null;
      const count = "requests" in sessions.size ? sessions.size.requests : 0;
      expect(typeof turns).toBe("number");
      expect(count * ((turns as number) - 7)).toBeGreaterThanOrEqual(config.gate.min_requests.p95);
    }
  });
});
