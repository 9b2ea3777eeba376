import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { renderSummary, runsPerBlock, summarizeConfig } from "../../src/config/summary.js";

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
  it("gives each side two starts at the first look when TTFT's start noise is gated (repeats.block auto)", () => {
    const c = config({});
    expect(runsPerBlock(c)).toBeLessThanOrEqual(2);
    const summary = summarizeConfig(c);
    expect(summary.starts.auto).toBe(true);
    expect(summary.starts.firstLookPerSide).toBeGreaterThanOrEqual(2);
    expect(renderSummary("c.yml", summary)).toMatch(
      /server starts: groups of \d runs? a side \(repeats\.block auto\), alternating A B, B A: \d+ starts a side at the first look/,
    );
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
    expect(summarizeConfig(c).starts).toMatchObject({ group: 5, auto: false, firstLookPerSide: 1 });
  });
});
