import { expect } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/load.js";

/** A valid config with parts replaced by what a test gets wrong. */
export const validCell = `  - name: chat
    dataset: { type: synthetic, input_tokens: 128, output_tokens: 64 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 20 }
`;
export const base = (
  overrides: { server?: string; model?: string; cells?: string; extra?: string } = {},
) => `version: 1
server: ${overrides.server ?? "{ kind: sim }"}
model: ${overrides.model ?? "{ name: sim-model }"}
cells:
${overrides.cells ?? validCell}${overrides.extra ?? ""}`;

/** The problems a rejected config text reports, as `path: message`. */
export function problemsOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfigText(text, "bad.yml", { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((problem) => `${problem.path}: ${problem.message}`);
  }
  throw new Error("expected the config to be rejected");
}
