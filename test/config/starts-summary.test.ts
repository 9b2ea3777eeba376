import { describe, expect, it } from "vitest";
import { alternationWords, repeatsBlockOf } from "../../src/config/alternation.js";
import { configSchema } from "../../src/config/schema.js";
import {
  alternation,
  baselineRunsPerStart,
  renderSummary,
  runsPerBlock,
  summarizeConfig,
} from "../../src/config/summary.js";

const config = (extra: Record<string, unknown>) =>
  configSchema.parse({
    version: 1,
    server: { kind: "docker", image: "vllm/vllm-openai:v0.11.0", args: ["m"] },
    model: { name: "m" },
    cells: [
      {
        name: "chat",
        endpoint: "chat",
        dataset: { type: "synthetic", input_tokens: 256, output_tokens: 128 },
        load: { type: "rate", rate: 4 },
        size: { requests: 240 },
      },
    ],
    ...extra,
  });

describe("the server starts validate prints", () => {
  it("gives every run its own start when the cost-optimal start holds fewer than two runs (repeats.block auto)", () => {
    // One run of the cell is 60 s, a start 180 s: Kalibera and Jones' runs per start √(180·3² / (60·3²)) = 1.7.
    const c = config({});
    expect(alternation(c)).toEqual({ runsPerGroup: 1, startEachGroup: true });
    const summary = summarizeConfig(c);
    expect(summary.starts).toMatchObject({ group: 1, startEachGroup: true, auto: true });
    expect(summary.starts.firstLookPerSide).toBe(c.repeats.min);
    expect(summary.starts.maxPerSide).toBe(c.repeats.max);
    expect(renderSummary("c.yml", summary)).toContain(
      "server starts: every run of a side on a start of its own (repeats.block auto), alternating A B, B A: 5 starts a side at the first look, 25 at 25 runs",
    );
    // Counted as validate counts them: 2 starts per run a side, 10 at the first look of both sides.
    const interleaved = summary.gpuMinutes.find((estimate) => estimate.mode === "interleaved")!;
    expect(interleaved.serverStarts).toEqual({ first: 10, max: 50 });
  });

  it("shares a start between a side's consecutive groups when starts are dear, with two starts a side at the first look", () => {
    // A 15-minute start against a 60 s run: √15 ≈ 3.9 runs per start, groups of 2 (A2 B4 A4 …).
    const c = config({ cost: { server_start_s: 900 } });
    expect(alternation(c)).toEqual({ runsPerGroup: 2, startEachGroup: false });
    const summary = summarizeConfig(c);
    expect(summary.starts.firstLookPerSide).toBeGreaterThanOrEqual(2);
    expect(renderSummary("c.yml", summary)).toMatch(
      /server starts: groups of 2 runs a side \(repeats\.block auto\), alternating A B, B A: \d+ starts a side at the first look/,
    );
  });

  it("takes repeats.block fresh as a start per run, and refuses it for a server the runner does not start", () => {
    const c = config({ repeats: { block: "fresh" } });
    expect(alternation(c)).toEqual({ runsPerGroup: 1, startEachGroup: true });
    expect(summarizeConfig(c).starts).toMatchObject({ group: 1, startEachGroup: true, auto: false });
    // The baseline job still records starts of two runs (main's history separates the levels within one).
    expect(baselineRunsPerStart(c)).toBe(2);
    const external = configSchema.safeParse({
      ...config({}),
      server: { kind: "external", base_url: "http://127.0.0.1:8000" },
      repeats: { block: "fresh" },
    });
    expect(external.success).toBe(false);
    const issue = external.error?.issues.find((entry) => entry.path.join(".") === "repeats.block");
    expect(issue?.message).toBe(
      'expected a number or "auto" with server.kind external: "fresh" restarts the server for every run, and this server is not started by the runner',
    );
  });

  it("never gives a start per run to a server someone else started (auto)", () => {
    const c = configSchema.parse({
      ...config({}),
      server: { kind: "external", base_url: "http://127.0.0.1:8000" },
      repeats: { block: "auto" },
    });
    expect(alternation(c).startEachGroup).toBe(false);
  });

  it("keeps one start a side at the first look when the gated metrics' start noise is small for the tolerance", () => {
    // Throughput alone (start sd 1%) against a 20% tolerance: √2·1% < ln(1.2)/5.
    const c = config({ gate: { metrics: ["output_throughput"], tolerance: 0.2 } });
    expect(runsPerBlock(c)).toBe(c.repeats.min);
    expect(summarizeConfig(c).starts.firstLookPerSide).toBe(1);
  });

  it("takes a declared group as it is", () => {
    const c = config({ repeats: { block: 5 } });
    expect(runsPerBlock(c)).toBe(5);
    expect(summarizeConfig(c).starts).toMatchObject({
      group: 5,
      startEachGroup: false,
      auto: false,
      firstLookPerSide: 1,
    });
  });

  it("declares an alternation back as repeats.block, and says it in words", () => {
    for (const chosen of [
      { runsPerGroup: 1, startEachGroup: true },
      { runsPerGroup: 1, startEachGroup: false },
      { runsPerGroup: 4, startEachGroup: false },
    ]) {
      const block = repeatsBlockOf(chosen);
      // The declared block validates and measures the same alternation.
      expect(alternation(config({ repeats: { block } }))).toEqual(chosen);
    }
    expect(repeatsBlockOf({ runsPerGroup: 1, startEachGroup: true })).toBe("fresh");
    expect(() => repeatsBlockOf({ runsPerGroup: 3, startEachGroup: true })).toThrow(/repeats\.block/);
    expect(alternationWords({ runsPerGroup: 1, startEachGroup: true })).toBe(
      "each run on a start of its own",
    );
    expect(alternationWords({ runsPerGroup: 4, startEachGroup: false })).toBe("in starts of 4");
  });
});
