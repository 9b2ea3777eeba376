import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults } from "../../../src/app/compare.js";
import { analyze } from "../../../src/compare/analyze/analyze.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { loadRuns, loadSides } from "../../../src/compare/inputs/load.js";
import { assignServerStarts, summarizeServerStarts } from "../../../src/compare/inputs/server-starts.js";
import { parseConfigText } from "../../../src/config/load.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import type { RunFile } from "../../../src/metrics/run-schema.js";
import { noSecrets } from "../../job-outbound.js";
import { vllmResult, vllmResultWithMetadata } from "../../metrics/vllm-fixtures.js";
import { makeRunFile, steadyFactors, writeResultsDir } from "../fixtures.js";

/**
 * An A/A whose sides each ran on one server start: the runs of a side agree within 0.4%, but the two
 * starts drew speeds 3% apart (what a start does on a GPU: allocator and KV layout, autotuning picks).
 */
function side(name: string, startFactor: number, start: RunRecord["serverStart"] | null): RunRecord[] {
  return ["chat", "rag", "longgen"].flatMap((cell) =>
    steadyFactors.slice(0, 5).map((factor, run) => {
      const record = runRecordFromRunFile(
        makeRunFile({ cell, run, slowdown: factor * startFactor }),
        `${name}/${cell}/run-${run}/run.json`,
      );
      return start ? { ...record, serverStart: start } : record;
    }),
  );
}

function compareSides(baseline: RunRecord[], candidate: RunRecord[]) {
  const settings = defaultCompareSettings();
  return analyze({
    baseline,
    candidate,
    gate: settings.gate,
    repeats: { ...settings.repeats, block: 5 },
    mode: "interleaved",
    now: "2026-12-07T00:00:00.000Z",
    tool: { name: "test", version: "0" },
  });
}

describe("the server start as a level of the noise", () => {
  it("does not call an A/A of one start a side a significant change, however tightly its runs agree", () => {
    const verdict = compareSides(
      side("a", 1, { id: "start-a", basis: "recorded" }),
      side("b", 1.03, { id: "start-b", basis: "recorded" }),
    );
    const tested = verdict.comparisons.filter((c) => c.gated && c.ci90 !== null);
    expect(tested.length).toBeGreaterThan(0);
    for (const check of tested) {
      // The 90% interval holds "no change": one start a side cannot tell the change from the starts.
      expect(check.ci90![0]).toBeLessThan(1);
      expect(check.ci90![1]).toBeGreaterThan(1);
      expect(check.verdict).not.toBe("regression");
      expect(check.noise?.starts).toEqual({ baseline: 1, candidate: 1 });
      expect(check.noise?.startBasis).toBe("prior");
    }
    expect(verdict.verdict).not.toBe("regression");
  });

  it("reads the same runs as a certain 3% change when each run is taken as its own start", () => {
    // What compare concluded before it knew the start: the runs' tight spread alone.
    const verdict = compareSides(side("a", 1, null), side("b", 1.03, null));
    const ttft = verdict.comparisons.find((c) => c.cell === "chat" && c.metric === "ttft_p95")!;
    expect(ttft.ci90![0]).toBeGreaterThan(1.02);
    expect(ttft.noise?.startBasis).toBe("fresh");
  });

  it("says when the runs did not record their start and were taken as one start per input", () => {
    const verdict = compareSides(
      side("a", 1, { id: "unrecorded:baseline:a", basis: "assumed-shared" }),
      side("b", 1, { id: "unrecorded:candidate:b", basis: "assumed-shared" }),
    );
    expect(verdict.warnings.join("\n")).toMatch(/15 baseline runs did not record the server start/);
    expect(verdict.warnings.join("\n")).toMatch(/--fresh-starts/);
  });

  it("measures the start level from several starts a side and says so", () => {
    const starts = (name: string) => (run: RunRecord, i: number) => ({
      ...run,
      serverStart: { id: `${name}-${i % 5 < 2 ? 0 : i % 5 < 4 ? 1 : 2}`, basis: "recorded" as const },
    });
    const verdict = compareSides(side("a", 1, null).map(starts("a")), side("b", 1, null).map(starts("b")));
    const check = verdict.comparisons.find((c) => c.cell === "chat" && c.metric === "ttft_p95")!;
    expect(check.noise?.starts).toEqual({ baseline: 3, candidate: 3 });
    expect(check.noise?.startBasis).toBe("measured+prior");
    expect(check.noise?.priorSource).toBe("gate.noise_prior.ttft");
  });
});

/* Which start each loaded run was measured on (compare/inputs/server-starts.ts, compare/inputs/load.ts). */
function record(source: string, session: string | null, serverStart?: RunRecord["serverStart"]): RunRecord {
  return {
    ...runRecordFromRunFile(makeRunFile(), source),
    session,
    ...(serverStart ? { serverStart } : {}),
  };
}

function startedOn(id: string, run: number, cell = "chat"): RunFile {
  return {
    ...makeRunFile({ run, cell }),
    serverStart: { id, startedAt: "2026-11-30T03:58:00.000Z", side: "baseline" },
  };
}

describe("assignServerStarts", () => {
  const recorded = record("a/run.json", "dirA", { id: "s-1", basis: "recorded" });
  const unrecorded = [
    record("a/run-1.json", "dirA"),
    record("a/run-2.json", "dirA"),
    record("b/run-1.json", "dirB"),
  ];

  it("keeps a recorded start and gives the unrecorded runs of one input one shared start", () => {
    const assigned = assignServerStarts([recorded, ...unrecorded], "baseline", { freshStarts: false });
    expect(assigned.map((run) => run.serverStart)).toEqual([
      { id: "s-1", basis: "recorded" },
      { id: "unrecorded:baseline:dirA", basis: "assumed-shared" },
      { id: "unrecorded:baseline:dirA", basis: "assumed-shared" },
      { id: "unrecorded:baseline:dirB", basis: "assumed-shared" },
    ]);
    // Loose files given on the command line are one input.
    const loose = assignServerStarts([record("x.json", null)], "candidate", { freshStarts: false });
    expect(loose[0]!.serverStart).toEqual({ id: "unrecorded:candidate:(files)", basis: "assumed-shared" });
  });

  it("gives each unrecorded run its own start when the user declared fresh starts", () => {
    const assigned = assignServerStarts([recorded, ...unrecorded], "baseline", { freshStarts: true });
    expect(assigned.map((run) => run.serverStart)).toEqual([
      { id: "s-1", basis: "recorded" },
      { id: "fresh:baseline:a/run-1.json", basis: "declared-fresh" },
      { id: "fresh:baseline:a/run-2.json", basis: "declared-fresh" },
      { id: "fresh:baseline:b/run-1.json", basis: "declared-fresh" },
    ]);
  });

  it("counts a side's starts by how each is known", () => {
    const assigned = assignServerStarts([recorded, ...unrecorded], "baseline", { freshStarts: false });
    expect(summarizeServerStarts(assigned)).toEqual({
      starts: 3,
      runs: 4,
      byBasis: { recorded: { starts: 1, runs: 1 }, "assumed-shared": { starts: 2, runs: 3 } },
      unassigned: 0,
    });
    expect(summarizeServerStarts(unrecorded).unassigned).toBe(3);
  });
});

describe("loading a side: every run knows its server start", () => {
  it("reads recorded starts from run.json and vLLM results, and assumes one per input for the rest", async () => {
    const root = await mkdtemp(join(tmpdir(), "vpg-starts-"));
    // Baseline: a results directory of this version (two starts) and one of an earlier version.
    const current = await writeResultsDir(join(root, "current"), [
      startedOn("start-a", 0),
      startedOn("start-a", 1),
      startedOn("start-b", 2),
    ]);
    const older = await writeResultsDir(join(root, "older"), [
      makeRunFile({ run: 0 }),
      makeRunFile({ run: 1 }),
    ]);
    // Candidate: vLLM results, one with --metadata server_start and one without.
    const tagged = join(root, "tagged.json");
    const untagged = join(root, "untagged.json");
    await writeFile(
      tagged,
      JSON.stringify(vllmResultWithMetadata({ label: "chat", server_start: "vllm-1" })),
    );
    await writeFile(untagged, JSON.stringify(vllmResult({ label: "chat", duration: 2.2 })));
    const sides = await loadSides([current, older], [tagged, untagged]);
    expect(sides.baseline.map((run) => run.serverStart)).toEqual([
      { id: "start-a", basis: "recorded" },
      { id: "start-a", basis: "recorded" },
      { id: "start-b", basis: "recorded" },
      { id: `unrecorded:baseline:${older}`, basis: "assumed-shared" },
      { id: `unrecorded:baseline:${older}`, basis: "assumed-shared" },
    ]);
    expect(sides.candidate.map((run) => run.serverStart)).toEqual([
      { id: "vllm-1", basis: "recorded" },
      { id: "unrecorded:candidate:(files)", basis: "assumed-shared" },
    ]);
    expect(sides.serverStarts.baseline).toMatchObject({
      starts: 3,
      byBasis: { recorded: { starts: 2, runs: 3 }, "assumed-shared": { starts: 1, runs: 2 } },
    });
    const fresh = await loadSides([current, older], [tagged, untagged], undefined, { freshStarts: true });
    expect(fresh.serverStarts.baseline).toMatchObject({
      starts: 4,
      byBasis: { recorded: { starts: 2, runs: 3 }, "declared-fresh": { starts: 2, runs: 2 } },
    });
    expect(fresh.candidate[1]!.serverStart).toEqual({
      id: `fresh:candidate:${untagged}`,
      basis: "declared-fresh",
    });
  });

  it("parses a run.json with or without serverStart (earlier versions), and refuses an empty id", async () => {
    const root = await mkdtemp(join(tmpdir(), "vpg-starts-"));
    const file = startedOn("5f0c4b1e-2d6a-4c31-9a57-0d3c2f8e7b11", 0);
    const dir = await writeResultsDir(join(root, "ok"), [file]);
    const [read] = await loadRuns([dir], "baseline");
    expect(read!.serverStart).toEqual({ id: file.serverStart!.id, basis: "recorded" });
    const bad = await writeResultsDir(join(root, "bad"), [
      { ...file, serverStart: { ...file.serverStart!, id: "" } },
    ]);
    await expect(loadRuns([bad], "baseline")).rejects.toThrow(
      /run\.json: invalid content\n {2}serverStart\.id: /,
    );
  });
});

describe("declaring fresh starts", () => {
  const config = (fresh: boolean) =>
    parseConfigText(
      `version: 1\nserver: { kind: sim }\nmodel: { name: m }\ncells:\n  - { name: chat, dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }, load: { type: concurrency, concurrency: 1 }, size: { requests: 10 } }\n${fresh ? "gate: { runs_are_fresh_starts: true }\n" : ""}`,
      "gate.yml",
      { env: {} },
    ).config;

  it("is off by default, and gate.runs_are_fresh_starts or compare's freshStarts turn it on", async () => {
    const root = await mkdtemp(join(tmpdir(), "vpg-starts-"));
    const baseline = await writeResultsDir(
      join(root, "base"),
      [0, 1, 2].map((run) => makeRunFile({ run })),
    );
    const candidate = await writeResultsDir(
      join(root, "cand"),
      [0, 1, 2].map((run) => makeRunFile({ run, slowdown: 1.001 })),
    );
    const bases = async (input: { fresh?: boolean; config: boolean }) => {
      const outcome = await compareResults({
        outbound: noSecrets,
        baseline: [baseline],
        candidate: [candidate],
        config: config(input.config),
        ...(input.fresh ? { freshStarts: true } : {}),
      });
      return new Set(outcome.runs.baseline.map((run) => run.serverStart?.basis));
    };
    expect(config(false).gate.runs_are_fresh_starts).toBe(false);
    expect(await bases({ config: false })).toEqual(new Set(["assumed-shared"]));
    expect(await bases({ config: true })).toEqual(new Set(["declared-fresh"]));
    expect(await bases({ config: false, fresh: true })).toEqual(new Set(["declared-fresh"]));
  });
});
