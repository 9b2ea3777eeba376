import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/load.js";

const text = (extra: string) => `version: 1
server: { kind: sim }
model: { name: m }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 16, output_tokens: 8 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 10 }
${extra}`;

function problemsOf(source: string): string[] {
  try {
    parseConfigText(source, "c.yml", { env: {} });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((problem) => `${problem.path}: ${problem.message}`);
  }
  throw new Error("expected the config to be rejected");
}

describe("the stored baseline's knobs", () => {
  it("default to 10 baseline runs, 10 sessions of history and no configured start cost", () => {
    const { config } = parseConfigText(text(""), "c.yml", { env: {} });
    expect(config.repeats).toEqual({ min: 5, max: 25, baseline: 10, block: "auto" });
    expect(config.gate.baseline_sessions).toBe(10);
    expect(config.cost.server_start_s).toBeUndefined();
  });

  it("refuse a baseline of one run, a history past one page of the API and a negative start cost", () => {
    expect(problemsOf(text("repeats: { baseline: 1 }\n"))).toEqual([
      expect.stringMatching(
        /^repeats\.baseline: expected a whole number >= 2 \(a stored baseline needs 2 runs/,
      ),
    ]);
    expect(problemsOf(text("gate: { baseline_sessions: 500 }\n"))).toEqual([
      expect.stringMatching(
        /^gate\.baseline_sessions: expected at most 100 \(the limit on baseline sessions; see docs\/config-reference\.md#limits\)/,
      ),
    ]);
    expect(problemsOf(text("cost: { server_start_s: -1 }\n"))).toEqual([
      expect.stringMatching(/^cost\.server_start_s: /),
    ]);
  });

  it("repeats.block is a whole number of runs from 1 to the runs limit", () => {
    expect(parseConfigText(text("repeats: { block: 1 }\n"), "c.yml", { env: {} }).config.repeats.block).toBe(
      1,
    );
    expect(problemsOf(text("repeats: { block: 0 }\n"))).toEqual([expect.stringMatching(/^repeats\.block: /)]);
    expect(problemsOf(text("repeats: { block: 2000 }\n"))).toEqual([
      expect.stringMatching(
        /^repeats\.block: expected at most 1000 \(the limit on runs per side; see docs\/config-reference\.md#limits\)/,
      ),
    ]);
  });
});
