import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/load.js";
import { base, problemsOf } from "./config-text.js";

describe("many problems: the first ones listed, the rest counted, in linear time", () => {
  it("50,000 unknown keys: one problem naming ten of them, a message of bounded size", () => {
    const keys = Array.from({ length: 50_000 }, (_, index) => `k${index}: 1\n`).join("");
    let error: ConfigError | undefined;
    try {
      parseConfigText(base({ extra: keys }), "bad.yml");
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toHaveLength(1);
    expect(error!.message).toMatch(/and 49990 more unknown keys \(only the first 10 are listed\)$/);
    expect(error!.message.length).toBeLessThan(3_000);
  });

  it("50,000 bad values: 50 problems listed and a count of the rest", () => {
    const args = Array.from({ length: 50_000 }, () => "1").join(", ");
    let error: ConfigError | undefined;
    try {
      parseConfigText(base({ server: `{ kind: sim, args: [${args}] }` }), "bad.yml");
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error!.problems).toHaveLength(50_000);
    const lines = error!.message.split("\n");
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines.at(-1)).toBe("  ... and 49950 more problems (only the first 50 are listed)");
  });

  it("50,000 unknown keys of a record: ten named, the rest counted", () => {
    const keys = Array.from({ length: 50_000 }, (_, index) => `    m${index}: 0.1\n`).join("");
    const problems = problemsOf(base({ extra: `gate:\n  metric_tolerance:\n${keys}` }));
    expect(problems).toEqual([
      expect.stringMatching(
        /^gate\.metric_tolerance: unknown keys "m0", .*, "m9" and 49990 more \(only the first 10 are listed\)$/,
      ),
    ]);
  });
});
