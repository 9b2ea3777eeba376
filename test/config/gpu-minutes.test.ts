import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import {
  baselineRunsPerStart,
  baselineStartGroups,
  interleavedStepStarts,
  renderSummary,
  serverStartsPerCell,
  startedServers,
  summarizeConfig,
} from "../../src/config/summary.js";
import { lookSchedule } from "../../src/stats/sequential.js";

const perCell = "  lifecycle: per-cell\n";

/** Three cells of exactly 1 minute each, a vLLM container: the cost model (3 min a start). */
function config(extra = "", block = 1) {
  const cell = (name: string) => `  - name: ${name}
    dataset: { type: synthetic, input_tokens: 128, output_tokens: 64 }
    load: { type: rate, rate: 4 }
    size: { duration_s: 60 }`;
  return parseConfigText(
    `version: 1
server:
  kind: docker
  image: vllm/vllm-openai@sha256:${"a".repeat(64)}
${extra}model:
  name: m
  revision: abc
cells:
${["chat", "rag", "batch"].map(cell).join("\n")}
repeats: { min: 3, max: 10, baseline: 10, block: ${block} }
`,
    "c.yml",
    { env: {} },
  ).config;
}

describe("GPU-minutes per pull request, every server start counted", () => {
  const looks = lookSchedule(3, 10);

  it("counts one start per measuring step (stored) and R + 1 per look (interleaved)", () => {
    expect(looks).toEqual([3, 5, 10]);
    expect(serverStartsPerCell("stored", 3, looks, "per-cell")).toBe(1);
    expect(serverStartsPerCell("stored", 10, looks, "per-cell")).toBe(3);
    // Looks of 3, 2 and 5 pairs: 4 + 3 + 6 blocks of consecutive same-side runs.
    expect(serverStartsPerCell("interleaved", 3, looks, "per-cell")).toBe(4);
    expect(serverStartsPerCell("interleaved", 10, looks, "per-cell")).toBe(13);
    expect(serverStartsPerCell("interleaved", 10, looks, "per-run")).toBe(20);
    // A start per run (repeats.block fresh): 2 per run a side whatever the looks.
    const fresh = { runsPerGroup: 1, startEachGroup: true };
    expect(serverStartsPerCell("interleaved", 3, looks, "per-cell", fresh)).toBe(6);
    expect(serverStartsPerCell("interleaved", 10, looks, "per-side", fresh)).toBe(20);
    expect(interleavedStepStarts(3, 5, fresh)).toBe(4);
    expect(interleavedStepStarts(3, 5, 1)).toBe(3);
    // A baseline job: its runs in starts of at most `baselineRunsPerStart`, as even as possible.
    expect(serverStartsPerCell("baseline", 10, looks, "per-cell", 5)).toBe(2);
    expect(serverStartsPerCell("baseline", 10, looks, "per-cell", 4)).toBe(3);
    expect(serverStartsPerCell("baseline", 1, looks, "per-cell", 5)).toBe(1);
    expect(serverStartsPerCell("baseline", 10, looks, "per-run", 5)).toBe(10);
  });

  it("records a baseline job over two server starts or more, as a start of the interleaved schedule holds runs", () => {
    expect(baselineStartGroups(10, 4)).toEqual([4, 3, 3]);
    expect(baselineStartGroups(10, 5)).toEqual([5, 5]);
    expect(baselineStartGroups(3, 2)).toEqual([2, 1]);
    expect(baselineStartGroups(0, 2)).toEqual([]);
    // repeats.block k: a start holds two groups (A B | B A), at most half the runs.
    expect(baselineRunsPerStart(config(perCell, 1))).toBe(2);
    expect(baselineRunsPerStart(config(perCell, 2))).toBe(4);
    expect(baselineRunsPerStart(config(perCell, 10))).toBe(5);
    // auto: Kalibera and Jones from gate.noise_prior (TTFT's 3% start and run sd, the widest gated) and
    // the costs: √(180 s · 0.03² / (60 s · 0.03²)) = √3 ≈ 1.7, so 2 runs a start (per cell).
    const auto = parseConfigText(
      `version: 1
server: { kind: docker, image: "vllm/vllm-openai@sha256:${"a".repeat(64)}", lifecycle: per-cell }
model: { name: m, revision: abc }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 128, output_tokens: 64 }
    load: { type: rate, rate: 4 }
    size: { duration_s: 60 }
repeats: { min: 3, max: 10, baseline: 10 }
`,
      "c.yml",
      { env: {} },
    ).config;
    expect(baselineRunsPerStart(auto)).toBe(2);
    // A start that costs 100 runs: starts of half the runs, the two every baseline job has at least.
    expect(baselineRunsPerStart({ ...auto, cost: { ...auto.cost, server_start_s: 6000 } })).toBe(5);
    // per-run: every run a start.
    expect(baselineRunsPerStart(config("  lifecycle: per-run\n"))).toBe(1);
  });

  it("validate prints the estimate per mode, with 3 minutes per start unless configured", () => {
    const summary = summarizeConfig(config(perCell), [], looks);
    const byMode = Object.fromEntries(summary.gpuMinutes.map((e) => [e.mode, e]));
    // stored: 3 cells x 3 runs x 1 min + 3 starts x 3 min; at 10 runs: 30 + 9 starts x 3.
    expect(byMode.stored).toMatchObject({
      minutes: { first: 18, max: 57 },
      serverStarts: { first: 3, max: 9 },
    });
    // interleaved: both sides, 2 x 3 x 3 + 12 starts x 3; at 10: 60 + 39 x 3.
    expect(byMode.interleaved).toMatchObject({
      minutes: { first: 54, max: 177 },
      serverStarts: { first: 12, max: 39 },
    });
    // baseline: 30 minutes of runs; 10 runs in starts of 2 (two groups of repeats.block 1): 5 a cell.
    expect(byMode.baseline).toMatchObject({
      runs: { first: 10 },
      minutes: { first: 75 },
      serverStarts: { first: 15 },
    });
    const text = renderSummary("c.yml", summary);
    expect(text).toContain(
      "per PR, stored baseline (PR side only): 18 at 3 runs (3 starts), 57 at 10 runs (9 starts)",
    );
    expect(text).toContain(
      "per PR, interleaved (both sides): 54 at 3 runs (12 starts), 177 at 10 runs (39 starts)",
    );
    expect(text).toContain("per baseline job (push/schedule): 75 at 10 runs, 15 server starts");

    // cost.server_start_s: 60 -> 9 minutes of runs and 3 starts of 1 minute.
    const fastStart = summarizeConfig(withStart(60), [], looks);
    expect(fastStart.gpuMinutes.find((e) => e.mode === "stored")!.minutes.first).toBe(9 + 3);
  });

  it("blocks of k runs per side on one start: ⌈R / k⌉ + 1 starts per look, 1 and 5 alike", () => {
    // One step of 20 runs: A B B A ... (21 blocks) against A5 B10 A10 B10 A5 (5 blocks).
    expect(serverStartsPerCell("interleaved", 20, [], "per-cell", 1)).toBe(21);
    expect(serverStartsPerCell("interleaved", 20, [], "per-cell", 5)).toBe(5);
    // The default looks at 5, 10, 15, 20, 25: each look is one group of 5 per side, 2 starts.
    const defaultLooks = lookSchedule(5, 25);
    expect(defaultLooks).toEqual([5, 10, 15, 20, 25]);
    expect(serverStartsPerCell("interleaved", 25, defaultLooks, "per-cell", 5)).toBe(10);
    expect(serverStartsPerCell("interleaved", 25, defaultLooks, "per-cell", 1)).toBe(30);
    // A look that cuts a group: 3 then 5 runs at k = 5 (A3 B3, then A2 B2 in the same group's order).
    expect(serverStartsPerCell("interleaved", 5, [3], "per-cell", 5)).toBe(4);
    // A per-run lifecycle restarts every run whatever the block.
    expect(serverStartsPerCell("interleaved", 20, [], "per-run", 5)).toBe(40);
    // validate uses repeats.block: 3 + 2 + 5 runs at k = 5 are 2 + 2 + 2 starts per cell.
    const summary = summarizeConfig(config(perCell, 5), [], looks);
    const interleaved = summary.gpuMinutes.find((e) => e.mode === "interleaved")!;
    expect(interleaved.serverStarts).toEqual({ first: 6, max: 18 });
    expect(interleaved.minutes.max).toBe(60 + 18 * 3);
  });

  it("per-side (the default): every cell of a side shares its server, so the starts are counted once", () => {
    const summary = summarizeConfig(config(), [], looks);
    expect(summary.gpuMinutes.map((e) => [e.mode, e.serverStarts, e.minutes])).toEqual([
      // stored: 9 minutes of runs + 1 start; at 10 runs 30 + one start per look (3).
      ["stored", { first: 1, max: 3 }, { first: 12, max: 39 }],
      // interleaved: 18 + 4 starts (A B B A A B B: 4 blocks of one side); at 10: 60 + 13 starts.
      ["interleaved", { first: 4, max: 13 }, { first: 30, max: 99 }],
      // baseline: 30 + 5 starts of the side's server (2 runs each).
      ["baseline", { first: 5, max: 5 }, { first: 45, max: 45 }],
    ]);
    expect(startedServers("per-side", 3)).toBe(1);
    expect(startedServers("per-cell", 3)).toBe(3);
    expect(startedServers("per-side", 0)).toBe(0);
  });

  it("a per-run lifecycle costs a start per run", () => {
    const summary = summarizeConfig(config("  lifecycle: per-run\n"), [], looks);
    const interleaved = summary.gpuMinutes.find((e) => e.mode === "interleaved")!;
    expect(interleaved.serverStarts.max).toBe(3 * 20);
  });
});

function withStart(seconds: number) {
  const base = config(perCell);
  return { ...base, cost: { ...base.cost, server_start_s: seconds } };
}

describe("validate's schedules: the idle time the idle-elided schedule is expected to cut", () => {
  const lowLoad = (runner = "", cellExtra = "") =>
    parseConfigText(
      `version: 1
server: { kind: docker, image: "vllm/vllm-openai@sha256:${"a".repeat(64)}" }
model: { name: m, revision: abc }
${runner}cells:
  - name: low
    dataset: { type: synthetic, input_tokens: 100, output_tokens: 100 }
    load: { type: rate, rate: 0.5 }
    size: { requests: 240 }
${cellExtra}  - name: closed
    dataset: { type: synthetic, input_tokens: 100, output_tokens: 100 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 40 }
`,
      "c.yml",
      { env: {} },
    ).config;

  it("cuts the expected idle time of a low-load cell from its GPU time, none from a closed loop", () => {
    const summary = summarizeConfig(lowLoad(), [], lookSchedule(5, 25));
    const [low, closed] = summary.cells;
    // A lone request of 100 + 100 tokens takes 1.01 s at the assumed speeds: an arrival finds nothing in
    // flight with probability e^(-0.505), and its gap (mean 2 s) is cut but for the 100 ms settle.
    const expected = (240 * Math.exp(-0.5 * 1.01) * Math.exp(-0.05)) / 0.5;
    expect(low!.estimatedElidedSecondsPerRun).toBeCloseTo(expected, 6);
    expect(low!.estimatedSecondsPerRun).toBeCloseTo(480 + 3 - expected, 6);
    expect(closed!.estimatedElidedSecondsPerRun).toBe(0);
    const text = renderSummary("c.yml", summary);
    expect(text).toContain(
      `schedule: idle gaps elided (settle 100 ms): low; about ${Math.round(expected)} of`,
    );
    expect(text).toContain("schedule: real time (closed loop: never idle): closed");
  });

  it("runner.schedule real-time (or a cell's schedule) keeps the wall-clock of the schedule", () => {
    const everywhere = summarizeConfig(lowLoad("runner: { schedule: real-time }\n"), [], lookSchedule(5, 25));
    expect(everywhere.cells[0]!.estimatedElidedSecondsPerRun).toBe(0);
    expect(renderSummary("c.yml", everywhere)).toContain("schedule: real time (configured): every cell");
    const oneCell = summarizeConfig(lowLoad("", "    schedule: real-time\n"), [], lookSchedule(5, 25));
    expect(oneCell.cells[0]!.schedule).toBe("real time (configured)");
  });
});
