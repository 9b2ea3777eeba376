import { describe, expect, it } from "vitest";
import type { TraceReplay } from "../../src/config/dataset-kinds/trace-fields.js";
import { parseConfigText } from "../../src/config/load.js";
import { type CellConfig, configSchema } from "../../src/config/schema.js";
import { sessionEstimate, summarizeConfig } from "../../src/config/summary.js";
import { base, problemsOf } from "./config-text.js";

const cellText = (dataset: string, extra = "") => `  - name: replay
    endpoint: completions
    dataset: ${dataset}
    load: { type: rate, rate: 50 }
    size: { requests: 20 }
${extra}`;

const mapped =
  "{ type: trace, path: my.csv, columns: { arrival: t, arrival_unit: ms, input_tokens: i, output_tokens: o } }";

describe("trace datasets in the config", () => {
  it("accepts each trace kind on the completions endpoint, and a conversation file only on chat", () => {
    for (const dataset of [
      "{ type: azure_trace, path: azure.csv }",
      "{ type: burstgpt_trace, path: b.csv, models: [ChatGPT], log_types: [Conversation log] }",
      "{ type: mooncake_trace, path: m.jsonl, window: { start_s: 60, end_s: 120 }, sample: 10 }",
      mapped,
    ])
      expect(() => parseConfigText(base({ cells: cellText(dataset) }), "ok.yml", { env: {} })).not.toThrow();
    expect(problemsOf(base({ cells: cellText("{ type: sharegpt_sessions, path: c.json }") }))).toEqual([
      "cells[0].endpoint: expected chat for a sharegpt_sessions dataset (a session sends its conversation as messages), got completions",
    ]);
  });

  it("names what a mapped trace lacks: a known format, the model column, a window that ends after it starts", () => {
    const dataset =
      "{ type: trace, path: trace.txt, models: [llama], window: { start_s: 10, end_s: 5 }, columns: { arrival: t, arrival_unit: ms, input_tokens: i, output_tokens: o } }";
    expect(problemsOf(base({ cells: cellText(dataset) }))).toEqual([
      'cells[0].dataset.format: expected csv or jsonl (the path "trace.txt" does not end in .csv, .jsonl or .json), got nothing',
      "cells[0].dataset.window.end_s: expected more than start_s (10), got 5",
      "cells[0].dataset.columns.model: expected the column of the model name (dataset.models filters on it), got nothing",
    ]);
    expect(
      problemsOf(base({ cells: cellText(mapped.replace("arrival_unit: ms", "arrival_unit: minutes")) })),
    ).toEqual([
      'cells[0].dataset.columns.arrival_unit: expected one of "s", "ms", "us", "datetime", got "minutes"',
    ]);
    expect(
      problemsOf(base({ cells: cellText("{ type: azure_trace, path: a.csv, max_rows: 2000000 }") })),
    ).toEqual([
      "cells[0].dataset.max_rows: expected at most 1000000 (the limit on a trace's requests; see docs/config-reference.md#limits), got 2000000",
    ]);
  });

  it("rejects a trace capacity search by rate: the trace's timestamps set the arrivals", () => {
    const problems = problemsOf(
      base({
        cells: cellText(
          "{ type: azure_trace, path: a.csv }",
          "    slo: { ttft_ms: 500 }\n    capacity: { range: { min: 1, max: 8 } }\n",
        ),
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^cells\[0\]\.load\.type: expected concurrency in a cell with capacity and a azure_trace dataset \(the trace's timestamps times dataset\.time_scale set its arrivals/,
      ),
    ]);
  });
});

describe("validate's view of a trace cell", () => {
  const config = configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [
      {
        name: "azure",
        dataset: { type: "azure_trace", path: "azure.csv", time_scale: 0.5 },
        load: { type: "rate", rate: 1000, max_concurrency: 8 },
        size: { requests: 120 },
      },
      {
        name: "mooncake",
        endpoint: "chat",
        dataset: { type: "mooncake_trace", path: "m.jsonl" },
        load: { type: "rate", rate: 1000 },
        size: { requests: 40 },
      },
    ],
  });
  const replays = new Map<string, TraceReplay>([
    ["azure", { sessions: 120, requests: 120, spanS: 58.24, lastRequestS: 58.24, outputTokensMean: 100 }],
    ["mooncake", { sessions: 40, requests: 100, spanS: 240, lastRequestS: 300, outputTokensMean: 10 }],
  ]);
  const traces = (cell: CellConfig) => replays.get(cell.name) ?? null;

  it("describes the load as the trace's own schedule, whatever the rate", () => {
    const summary = summarizeConfig(config, [], undefined, traces);
    expect(summary.cells.map((cell) => cell.load)).toEqual([
      "trace timestamps, 120 requests over 58.2 s, max 8 in flight",
      "trace timestamps, 40 sessions (100 requests) over 240 s",
    ]);
    // Without the file: the time scale, and no rate.
    expect(summarizeConfig(config).cells.map((cell) => cell.load)).toEqual([
      "trace timestamps (time x0.5), max 8 in flight",
      "trace timestamps (time x1)",
    ]);
  });

  it("estimates a run from the trace's span and its sessions, not from the rate", () => {
    const idle = { ...config, runner: { ...config.runner, schedule: "real-time" as const } };
    const summary = summarizeConfig(idle, [], undefined, traces);
    // The span, then one session: one 100-token answer at 30 ms a token.
    expect(summary.cells[0]!.estimatedSecondsPerRun).toBeCloseTo(58.24 + 3, 6);
    // The last request 300 s in (a later turn), then its 10-token answer: longer than the sessions'
    // span and one session of 2.5 turns.
    expect(summary.cells[1]!.estimatedSecondsPerRun).toBeCloseTo(300 + 0.3, 6);
    // A format without sessions is one turn a session even unread; a Mooncake trace's turns are assumed.
    expect(sessionEstimate(config.cells[0]!)!.turns).toBe(1);
    expect(sessionEstimate(config.cells[1]!)!.turns).toBe(4);
    expect(sessionEstimate(config.cells[1]!, undefined, replays.get("mooncake")!)!.turns).toBe(2.5);
  });
});
