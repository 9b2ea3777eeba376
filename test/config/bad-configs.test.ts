import { describe, expect, it } from "vitest";
import { datasetKinds } from "../../src/config/dataset-kinds.js";
import { ConfigError, parseConfigText } from "../../src/config/load.js";
import { serverKinds } from "../../src/config/server-kinds.js";
import { base, problemsOf, validCell } from "./config-text.js";

/** The registry's kinds as a message lists them, `"a", "b"` (the registry's order is the message's). */
const quotedList = (kinds: readonly string[]) => kinds.map((kind) => `"${kind}"`).join(", ");

/** Each entry: what the user wrote wrong, and the message they need to fix it. */
const catalogue: { name: string; text: string; expected: RegExp[]; env?: Record<string, string> }[] = [
  {
    name: "docker hf_cache_dir with ~ (docker does not expand it)",
    text: base({
      server: "{ kind: docker, image: vllm/vllm-openai:v0.11.0, hf_cache_dir: ~/.cache/huggingface }",
    }),
    expected: [/^server\.hf_cache_dir: expected an absolute host directory .*does not expand ~/],
  },
  {
    name: "docker hf_cache_dir as a bare name (docker makes it a named volume)",
    text: base({ server: "{ kind: docker, image: vllm/vllm-openai:v0.11.0, hf_cache_dir: hf-cache }" }),
    expected: [/^server\.hf_cache_dir: expected an absolute host directory .*named volume/],
  },
  {
    name: "docker_args with --network host (docker drops --publish)",
    text: base({
      server: "{ kind: docker, image: vllm/vllm-openai:v0.11.0, docker_args: [--network, host] }",
    }),
    expected: [/^server\.docker_args: --network host is not supported: docker then drops --publish/],
  },
  {
    name: "docker_args with --net=host",
    text: base({ server: "{ kind: docker, image: vllm/vllm-openai:v0.11.0, docker_args: [--net=host] }" }),
    expected: [/^server\.docker_args: --network host is not supported/],
  },
  {
    name: "rate given as a word",
    text: base({
      cells: validCell.replace("{ type: concurrency, concurrency: 4 }", '{ type: rate, rate: "fast" }'),
    }),
    expected: [/^cells\[0\]\.load\.rate: expected a positive number, got "fast"$/],
  },
  {
    name: "unknown top-level key with a typo",
    text: base({ extra: "repeat: { min: 3 }\n" }),
    expected: [/^\(top level\): unknown key "repeat" \(did you mean "repeats"\?\)/],
  },
  {
    name: "unknown server kind",
    text: base({ server: "{ kind: kubernetes }" }),
    expected: [new RegExp(`^server\\.kind: expected one of ${quotedList(serverKinds)}, got "kubernetes"$`)],
  },
  {
    name: "docker without an image",
    text: base({ server: "{ kind: docker }" }),
    expected: [
      /^server\.image: expected a container image such as vllm\/vllm-openai@sha256:\.\.\., got nothing/,
    ],
  },
  {
    name: "command with an empty argv",
    text: base({ server: "{ kind: command, argv: [] }" }),
    expected: [/^server\.argv: expected a non-empty list such as \[vllm, serve, MODEL\]$/],
  },
  {
    name: "external endpoint that is not a URL",
    text: base({ server: "{ kind: external, base_url: localhost:8000 }" }),
    expected: [/^server\.base_url: expected an http\(s\) URL, got "localhost:8000"$/],
  },
  {
    name: "port out of range",
    text: base({ server: "{ kind: sim, port: 70000 }" }),
    expected: [/^server\.port: expected a TCP port \(0-65535\), got 70000$/],
  },
  {
    name: "missing model name",
    text: base({ model: "{ revision: abc }" }),
    expected: [/^model\.name: expected a non-empty string, got nothing/],
  },
  {
    name: "no cells",
    text: base({ cells: "" }).replace("cells:\n", "cells: []\n"),
    expected: [/^cells: expected at least one cell$/],
  },
  {
    name: "duplicate cell names",
    text: base({ cells: validCell + validCell }),
    expected: [/^cells\[1\]\.name: duplicate cell name "chat" \(also cells\[0\]\.name\)$/],
  },
  {
    name: "unknown dataset type",
    text: base({ cells: validCell.replace("type: synthetic", "type: csv") }),
    expected: [
      new RegExp(
        `^cells\\[0\\]\\.dataset\\.type: expected one of ${quotedList(Object.keys(datasetKinds))}, got "csv"$`,
      ),
    ],
  },
  {
    name: "quality.tasks.external naming no cell, without a sample count, a name twice",
    text: base({
      extra:
        "quality:\n  tasks:\n    external:\n" +
        "      - { name: arith, cell: qa, command: [lm_eval], accuracy_path: results.a, count_path: n }\n" +
        "      - { name: arith, cell: chat, command: [lm_eval], accuracy_path: results.a }\n",
    }),
    expected: [
      /^quality\.tasks\.external\[1\]\.count_path: expected samples_path or count_path \(the number of samples is needed for the Wilson interval\)$/,
      /^quality\.tasks\.external\[0\]\.cell: expected the name of a cell \(chat\), got "qa"$/,
      /^quality\.tasks\.external\[1\]\.name: expected a unique name, got "arith" twice$/,
    ],
  },
  {
    name: "quality.greedy naming no cell",
    text: base({ extra: "quality:\n  greedy:\n    cells: [chat, qa]\n" }),
    expected: [/^quality\.greedy\.cells\[1\]: expected the name of a cell \(chat\), got "qa"$/],
  },
  {
    name: "uniform length without max",
    text: base({
      cells: validCell.replace("output_tokens: 64", "output_tokens: { distribution: uniform, min: 10 }"),
    }),
    expected: [/^cells\[0\]\.dataset\.output_tokens\.max: expected a whole number >= 1, got nothing/],
  },
  {
    name: "fractional token count",
    text: base({ cells: validCell.replace("input_tokens: 128", "input_tokens: 12.5") }),
    expected: [
      /^cells\[0\]\.dataset\.input_tokens: expected a token count \(whole number >= 1\) or a distribution mapping, got 12\.5$/,
    ],
  },
  {
    name: "size with a typo",
    text: base({ cells: validCell.replace("size: { requests: 20 }", "size: { request: 20 }") }),
    expected: [/^cells\[0\]\.size: unknown key "request" \(did you mean "requests"\?\)/],
  },
  {
    name: "prefix policy not fresh or reuse",
    text: base({ cells: `${validCell}    prefix: warm\n` }),
    expected: [/^cells\[0\]\.prefix: expected one of "fresh", "reuse", got "warm"$/],
  },
  {
    name: "stage with both rate and concurrency",
    text: base({
      cells: validCell.replace(
        "{ type: concurrency, concurrency: 4 }",
        "{ type: stages, stages: [{ duration_s: 5, rate: 2, concurrency: 3 }] }",
      ),
    }),
    expected: [/^cells\[0\]\.load\.stages\[0\]: expected exactly one of rate or concurrency in each stage$/],
  },
  {
    name: "repeats max below min",
    text: base({ extra: "repeats: { min: 5, max: 3 }\n" }),
    expected: [/^repeats: expected max >= min$/],
  },
  {
    name: "tolerance given in percent",
    text: base({ extra: "gate: { tolerance: 5 }\n" }),
    expected: [/^gate\.tolerance: expected a fraction between 0 and 1, got 5$/],
  },
  {
    name: "unknown gated metric",
    text: base({ extra: "gate: { metrics: [ttft_p95, ttft_p42] }\n" }),
    expected: [/^gate\.metrics\[1\]: expected one of .*"ttft_p95".*, got "ttft_p42"$/],
  },
  {
    name: "fail_on not a policy",
    text: base({ extra: "gate: { fail_on: sometimes }\n" }),
    expected: [/^gate\.fail_on: expected one of "regression", "inconclusive", "never", got "sometimes"$/],
  },
  {
    name: "wrong config version",
    text: base().replace("version: 1", "version: 2"),
    expected: [/^version: expected 1 \(the only config version\), got 2$/],
  },
  {
    name: "environment variable not set",
    text: base({ server: "{ kind: external, base_url: '${VLLM_URL}' }" }),
    expected: [
      /^server\.base_url: environment variable VLLM_URL is not set \(referenced as \$\{VLLM_URL\}\)$/,
    ],
  },
  {
    name: "secret from the environment is never echoed",
    text: base({ server: "{ kind: external, base_url: '${VLLM_URL}' }" }),
    env: { VLLM_URL: "sk-super-secret-value" },
    expected: [
      /^server\.base_url: expected an http\(s\) URL, got the value of \$\{VLLM_URL\} \(not shown\)$/,
    ],
  },
  {
    name: "YAML syntax error",
    text: "version: 1\nserver: { kind: sim\n",
    expected: [/^\(YAML syntax\): /],
  },
  {
    name: "env pass-through names that are not variable names",
    text: base({ server: "{ kind: docker, image: vllm/vllm-openai:v0.11.0, env: [HF TOKEN] }" }),
    expected: [/^server\.env\[0\]: expected an environment variable name like HF_TOKEN, got "HF TOKEN"$/],
  },
];

describe("bad configs", () => {
  for (const entry of catalogue) {
    it(`explains: ${entry.name}`, () => {
      const problems = problemsOf(entry.text, entry.env);
      for (const pattern of entry.expected) {
        expect(problems, problems.join("\n")).toEqual(
          expect.arrayContaining([expect.stringMatching(pattern)]),
        );
      }
      if (entry.env) {
        for (const value of Object.values(entry.env)) expect(problems.join("\n")).not.toContain(value);
      }
    });
  }

  it("reports every problem at once, in file order, with line numbers", () => {
    const text = base({
      server: "{ kind: sim, profil: fast }",
      cells:
        validCell.replace("concurrency: 4", "concurrency: -1") +
        `${validCell.replace("name: chat", "name: other").replace("requests: 20", "requests: 0")}`,
    });
    let error: ConfigError | undefined;
    try {
      parseConfigText(text, "bad.yml");
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = error!.problems.map((problem) => problem.path);
    expect(paths).toEqual(["server", "cells[0].load.concurrency", "cells[1].size.requests"]);
    expect(error!.problems.map((problem) => problem.line)).toEqual([2, 7, 12]);
    expect(error!.message).toMatch(
      /^bad\.yml: 3 problems in the config\n {2}bad\.yml:2:\d+ server: unknown key "profil" \(did you mean "profile"\?\)/,
    );
  });
});

/** Nine levels of ten aliases each: 10^9 values once expanded ("billion laughs"). */
function aliasBomb(): string {
  let text = 'x0: &x0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n';
  for (let level = 1; level <= 8; level++) {
    text += `x${level}: &x${level} [${Array.from({ length: 10 }, () => `*x${level - 1}`).join(", ")}]\n`;
  }
  return text;
}

describe("YAML limits (docs/config-reference.md#limits): exit 2 with a message, never a crash", () => {
  const cases: { name: string; text: string; expected: RegExp }[] = [
    {
      name: "an alias bomb",
      text: base({ extra: aliasBomb() }),
      expected: /^x\d: aliases expand this to more than 100000 values \(the limit on the expanded document/,
    },
    {
      name: "an undefined alias",
      text: base({ extra: "name: *nope\n" }),
      expected: /^name: alias \*nope is not defined \(define &nope before using it\)$/,
    },
    {
      name: "a self-referencing anchor",
      text: base({ extra: "name: &loop [*loop]\n" }),
      expected: /^name\[0\]: alias \*loop refers to a node that contains it/,
    },
    {
      name: "2,000-deep flow nesting",
      text: base({ extra: `name: ${"[".repeat(2000)}${"]".repeat(2000)}\n` }),
      expected: /nested deeper than 64 levels \(the limit on mappings and lists inside each other\)$/,
    },
    {
      name: "65-deep nesting the parser can read",
      text: base({ extra: `name: ${"[".repeat(65)}${"]".repeat(65)}\n` }),
      expected: /^name(\[0\]){9}\.\.\.: nested deeper than 64 levels/,
    },
    {
      name: "a duplicate key",
      text: base({ extra: "version: 1\n" }),
      expected: /^version: duplicate key "version" \(first on line 1\); keys must be unique$/,
    },
    {
      name: "two YAML documents",
      text: `${base()}---\nversion: 1\n`,
      expected: /^\(YAML syntax\): the file holds more than one YAML document/,
    },
    {
      name: "a file over 1 MiB",
      text: base({ extra: `name: "${"x".repeat(1024 * 1024)}"\n` }),
      expected: /^\(file\): the file has \d+ characters; the limit is 1048576 \(1 MiB\)$/,
    },
  ];
  for (const entry of cases) {
    it(`explains: ${entry.name}`, () => {
      const problems = problemsOf(entry.text);
      expect(problems, problems.join("\n")).toEqual(
        expect.arrayContaining([expect.stringMatching(entry.expected)]),
      );
    });
  }

  it("keeps aliases that expand to little", () => {
    const text = base({
      cells: `${validCell.replace("  - name: chat\n    dataset: {", "  - name: chat\n    dataset: &data {")}  - name: other\n    dataset: *data\n    load: { type: concurrency, concurrency: 1 }\n    size: { requests: 5 }\n`,
    });
    const { config } = parseConfigText(text, "ok.yml");
    expect(config.cells[1]!.dataset).toEqual(config.cells[0]!.dataset);
  });
});

describe("what run cannot execute is refused by validate (configLimits, docs/config-reference.md#limits)", () => {
  const cases: { name: string; cells: string; expected: RegExp }[] = [
    {
      name: "concurrency: 1e15 (crashed run with Invalid array length)",
      cells: validCell.replace("concurrency: 4", "concurrency: 1e15"),
      expected:
        /^cells\[0\]\.load\.concurrency: expected at most 4096 \(the limit on requests in flight; see docs\/config-reference\.md#limits\), got 1000000000000000$/,
    },
    {
      name: "concurrency: 100000",
      cells: validCell.replace("concurrency: 4", "concurrency: 100000"),
      expected: /^cells\[0\]\.load\.concurrency: expected at most 4096 /,
    },
    {
      name: "a rate of a million per second",
      cells: validCell.replace("{ type: concurrency, concurrency: 4 }", "{ type: rate, rate: 1e6 }"),
      expected: /^cells\[0\]\.load\.rate: expected at most 10000 \(the limit on requests per second/,
    },
    {
      name: "10 million requests per run",
      cells: validCell.replace("requests: 20", "requests: 10000000"),
      expected:
        /^cells\[0\]\.size\.requests: expected at most 100000 \(the limit on measured requests per run/,
    },
    {
      name: "a prompt of 1e12 tokens",
      cells: validCell.replace("input_tokens: 128", "input_tokens: 1e12"),
      expected: /^cells\[0\]\.dataset\.input_tokens: expected at most 1000000 \(the limit on token counts/,
    },
    {
      name: "more prompt tokens in one run than fit in memory",
      cells: validCell
        .replace("input_tokens: 128", "input_tokens: 1000000")
        .replace("requests: 20", "requests: 200"),
      expected:
        /^cells\[0\]\.size\.requests: expected at most 100 requests with prompts of up to 1000000 tokens \(the limit of 100000000 prompt tokens per run; see docs\/config-reference\.md#limits\), got 200$/,
    },
    {
      name: "a timeout past what a timer can hold",
      cells: `${validCell}    timeout_s: 1e12\n`,
      expected: /^cells\[0\]\.timeout_s: expected at most 86400 \(the limit on seconds/,
    },
  ];
  for (const entry of cases) {
    it(`refuses ${entry.name}`, () => {
      const problems = problemsOf(base({ cells: entry.cells }));
      expect(problems, problems.join("\n")).toEqual(
        expect.arrayContaining([expect.stringMatching(entry.expected)]),
      );
    });
  }
});
