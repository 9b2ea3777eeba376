import { describe, expect, it } from "vitest";
import type { SeriesChangePoint } from "../../src/compare/history/history-analysis.js";
import {
  type HistoryReport,
  renderCalibrationHistoryLine,
  renderHistorySection,
} from "../../src/report/history.js";
import { commitOf, session } from "../compare/history/history-fixtures.js";

const base: HistoryReport = {
  store: "branch perf-history (vllm-perf-gate/history.jsonl)",
  refused: null,
  sessionsUsed: 12,
  pooledDf: 90,
  leftOut: [],
  written: null,
  changePoints: [],
  alreadyOnMain: null,
};

const step: SeriesChangePoint = {
  cell: "chat|<b>",
  metric: "ttft_p95",
  lastBefore: session(6),
  firstAfter: session(7),
  ratio: 1.12,
  ratioLow: 1.1,
  ratioHigh: 1.14,
  worse: true,
  isNew: true,
  movedWith: ["ttft_p50"],
};

describe("renderHistorySection", () => {
  it("says what the gate used, and which sessions it left out", () => {
    const text = renderHistorySection({
      ...base,
      leftOut: [{ session: "9-1", commit: commitOf(9), reason: "recorded under other conditions" }],
    });
    expect(text).toContain("### Main's history");
    expect(text).toContain(
      "Used 12 earlier session(s) of main from `branch perf-history (vllm-perf-gate/history.jsonl)` for the between-session drift and the baseline's run-to-run variance (+90 degrees of freedom).",
    );
    expect(text).toContain("Left out 1 session(s) recorded under other conditions: `000000000000`");
  });

  it("tells a refused history and the fallback", () => {
    const text = renderHistorySection({
      ...base,
      refused: "900001 bytes, more than the 900000 allowed (limit maxHistoryBytes)",
    });
    expect(text).toContain("> [!WARNING]");
    expect(text).toContain("limit maxHistoryBytes");
    expect(text).toContain("The gate fell back to the baseline artifacts' sessions");
  });

  it("tables change points with escaped cells, the commits either side and what moved with them", () => {
    const text = renderHistorySection({
      ...base,
      written: { appended: 9, droppedSessions: 2, conflicts: 1 },
      changePoints: [step],
    });
    expect(text).toContain("after 1 concurrent write(s) retried");
    expect(text).toContain("compaction dropped the 2 oldest session(s)");
    expect(text).toContain("first seen with this session");
    expect(text).not.toContain("<b>");
    expect(text).toMatch(
      /\| TTFT p95 \| \+12\.0% \(worse\) \| \+10\.0% … \+14\.0% \| `000000000000` … `000000000000` \| TTFT p50 \|/,
    );
  });

  it("says main already regressed, and whether that still blocks", () => {
    const explained = [
      {
        cell: "chat",
        metric: "ttft_p95" as const,
        prRatio: 1.11,
        mainRatio: 1.1,
        mainLow: 1.08,
        mainHigh: 1.12,
        lastBefore: session(6),
        firstAfter: session(7),
        sessionsSince: 5,
      },
    ];
    const pass = renderHistorySection({
      ...base,
      alreadyOnMain: { explained, onlyReproduces: true, blocking: false },
    });
    expect(pass).toContain("> [!NOTE]");
    expect(pass).toContain(
      "**Main already regressed.** TTFT p95 of chat is +11.0% here, and main itself moved +10.0% (+8.0% … +12.0%)",
    );
    expect(pass).toContain("not blocked (history-main-regressed: pass)");
    const block = renderHistorySection({
      ...base,
      alreadyOnMain: { explained, onlyReproduces: true, blocking: true },
    });
    expect(block).toContain("still blocked (history-main-regressed: block)");
    const partial = renderHistorySection({
      ...base,
      alreadyOnMain: { explained, onlyReproduces: false, blocking: false },
    });
    expect(partial).toContain(
      "Other regressions of this pull request go beyond main's level and still count.",
    );
  });
});

describe("renderCalibrationHistoryLine", () => {
  it("says where the drift came from, the sessions left out, or that there is none", () => {
    expect(renderCalibrationHistoryLine(null)).toBe("Between-session drift: none (history: off).");
    expect(
      renderCalibrationHistoryLine({
        store: "branch perf-history (h.jsonl)",
        sessionsUsed: 9,
        leftOut: 2,
        refused: null,
      }),
    ).toBe(
      "Between-session drift from 9 session(s) of main's history (`branch perf-history (h.jsonl)`), 2 left out (recorded under other conditions).",
    );
  });

  it("escapes a refusal's text from the history and keeps the store's name in one code span", () => {
    const line = renderCalibrationHistoryLine({
      store: "branch `x`\nperf",
      sessionsUsed: 0,
      leftOut: 0,
      refused: "line 3: field cell: <script> *bold*",
    });
    expect(line).toContain("(`branch xperf`)");
    expect(line).not.toContain("<script>");
    expect(line).not.toContain("*bold*");
    expect(line).toContain("No between-session drift recorded.");
  });
});
