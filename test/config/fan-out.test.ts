import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import { summarizeConfig } from "../../src/config/summary.js";
import { base, problemsOf } from "./config-text.js";

/** A session cell whose dataset ends in `fanOut` (the `fan_out` mapping's YAML) and `extra` dataset keys. */
const cell = (
  fanOut: string,
  options: { extra?: string; load?: string; type?: string } = {},
) => `  - name: agents
    endpoint: chat
    dataset:
      type: ${options.type ?? "sessions"}
      ${options.type === "sharegpt_sessions" ? "path: chats.json" : "turns: 6\n      message_tokens: 40\n      output_tokens: 50"}${options.extra ?? ""}
      fan_out: ${fanOut}
    load: ${options.load ?? "{ type: concurrency, concurrency: 4 }"}
    size: { requests: 20 }
`;

const problems = (fanOut: string, options?: Parameters<typeof cell>[1]) =>
  problemsOf(base({ cells: cell(fanOut, options) })).join("\n");

describe("fan_out in a session dataset (validation)", () => {
  it("accepts turns or a share, a count or a range of branches, and says so in validate's line", () => {
    const listed = parseConfigText(
      base({
        cells: cell("{ turns: [2, 5], branches: 4, message_tokens: 20, output_tokens: 30 }"),
      }),
      "ok.yml",
    );
    const line = summarizeConfig(listed.config).cells[0]!.dataset;
    expect(line).toContain("fan-out at turns 2, 5 to 4 branches (message 20 / out 30)");
    const shared = parseConfigText(
      base({
        cells: cell(
          "{ share: 0.25, branches: { min: 2, max: 6 }, message_tokens: 20, output_tokens: { distribution: uniform, min: 10, max: 90 }, tools: true }",
          { extra: "\n      tools: { names: [grep] }" },
        ),
      }),
      "ok.yml",
    );
    expect(summarizeConfig(shared.config).cells[0]!.dataset).toContain(
      "fan-out at 25% of turns to 2-6 branches (message 20 / out 10-90, with tools)",
    );
    expect(
      parseConfigText(
        base({
          cells: cell("{ turns: [1], branches: 2, message_tokens: 8, output_tokens: 8 }", {
            type: "sharegpt_sessions",
          }),
        }),
        "ok.yml",
      ).config.cells[0]!.dataset,
    ).toMatchObject({ fan_out: { turns: [1], branches: 2, tools: false } });
  });

  it("names the field and what it expected for each mistake", () => {
    expect(problems("{ branches: 2, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out: expected `turns` \(the turn numbers that fan out\) or `share` \(the chance a turn does\), got neither$/m,
    );
    expect(problems("{ turns: [2], share: 0.5, branches: 2, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.share: expected `turns` or `share`, not both$/m,
    );
    expect(problems("{ turns: [2, 2], branches: 2, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.turns\[1\]: expected each turn number once, got 2 again$/m,
    );
    expect(problems("{ turns: [0], branches: 2, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.turns\[0\]: expected a turn number \(1-based whole number >= 1\), got 0$/m,
    );
    expect(problems("{ turns: [7], branches: 2, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.turns\[0\]: expected a turn number within the session's turns \(at most 6, dataset\.turns\), got 7$/m,
    );
    expect(problems("{ turns: [2], branches: 33, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.branches: expected at most 32 \(the limit on branches per fan-out; see docs\/config-reference\.md#limits\), got 33$/m,
    );
    expect(problems("{ turns: [2], branches: many, message_tokens: 8, output_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.branches: expected a number of branches \(whole number >= 1\) or \{ min, max \}, got "many"$/m,
    );
    expect(
      problems("{ turns: [2], branches: { min: 5, max: 3 }, message_tokens: 8, output_tokens: 8 }"),
    ).toMatch(/^cells\[0\]\.dataset\.fan_out\.branches\.min: expected min <= max, got min 5 > max 3$/m);
    expect(problems("{ turns: [2], branches: 2, message_tokens: 8, output_tokens: 8, tools: true }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.tools: expected tools declared in dataset\.tools for the branches' tool rounds, got none$/m,
    );
    expect(problems("{ turns: [2], branches: 2, message_tokens: 8 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.output_tokens: expected a token count/m,
    );
    expect(problems("{ turns: [2], branches: 2, message_tokens: 8, output_tokens: 8, depth: 2 }")).toMatch(
      /^cells\[0\]\.dataset\.fan_out: unknown key "depth"/m,
    );
    // Sessions in flight times branches are the requests in flight: the concurrency limit holds for both.
    expect(
      problems("{ turns: [2], branches: 32, message_tokens: 8, output_tokens: 8 }", {
        load: "{ type: rate, rate: 1, max_concurrency: 200 }",
      }),
    ).toMatch(
      /^cells\[0\]\.dataset\.fan_out\.branches: expected at most 4096 requests in flight \(the limit on concurrency; see docs\/config-reference\.md#limits\), got up to 6400 \(200 sessions x 32 branches\)$/m,
    );
    // A ShareGPT file's conversations are as long as they are: only max_turns bounds a listed turn.
    expect(
      problems("{ turns: [9], branches: 2, message_tokens: 8, output_tokens: 8 }", {
        type: "sharegpt_sessions",
        extra: "\n      max_turns: 4",
      }),
    ).toMatch(/at most 4, dataset\.max_turns\), got 9$/m);
  });

  it("is not a key of a trace (its prompts are as given)", () => {
    const text = base({
      cells: `  - name: trace
    endpoint: chat
    dataset: { type: mooncake_trace, path: t.jsonl, fan_out: { turns: [1], branches: 2, message_tokens: 8, output_tokens: 8 } }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 20 }
`,
    });
    expect(problemsOf(text).join("\n")).toMatch(/^cells\[0\]\.dataset: unknown key "fan_out"/m);
  });

  it("counts a fan-out's branches in the deepest context", () => {
    // 6 turns x 40 + 5 answers x 50 + one fan-out of 32 answers of 40,000 + one branch message of 8.
    expect(
      problems("{ turns: [3], branches: 32, message_tokens: 8, output_tokens: 40000 }", {
        load: "{ type: concurrency, concurrency: 1 }",
      }),
    ).toMatch(
      /got up to 1280498 \(system prompt \+ turns x \(message \+ answer\), a fan-out turn's answer its branches' answers\)/,
    );
  });
});
