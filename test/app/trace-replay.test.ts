import { describe, expect, it } from "vitest";
import { runCellVirtually } from "../../src/app/virtual-run.js";
import { configSchema, type FileDatasetConfig } from "../../src/config/schema.js";
import { builtInProfile } from "../../src/sim/index.js";
import { readDatasetFile } from "../../src/workload/dataset-file.js";
import { traceArrivals } from "../../src/workload/sessions.js";
import { mappedColumns, traceFixtures } from "../workload/trace-fixtures.js";

/**
 * A trace cell on the simulator's engine on virtual time, through the runner's dispatcher and the run file:
 * its sessions start on the trace's timestamps (times time_scale) to the millisecond, and its achieved
 * rate is judged against the trace's own schedule, so a `rate` far above (or below) the trace's never
 * makes the run client-bound.
 */

const datasets: Record<string, Record<string, unknown>> = {
  azure: { type: "azure_trace", path: "azure-conv.csv", time_scale: 0.25 },
  burstgpt: { type: "burstgpt_trace", path: "burstgpt.csv", time_scale: 0.05 },
  mooncake: { type: "mooncake_trace", path: "mooncake.jsonl", block_tokens: 16, time_scale: 0.5 },
  mapped: { type: "trace", path: "mapped.csv", columns: mappedColumns, models: ["llama"], time_scale: 0.5 },
};

async function replay(name: string, endpoint: "chat" | "completions", rate: number) {
  const config = configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "sim-model" },
    cells: [
      {
        name,
        endpoint,
        dataset: datasets[name],
        load: { type: "rate", rate },
        size: { requests: 12 },
        warmup: { requests: 0 },
      },
    ],
  });
  const cell = config.cells[0]!;
  const file = await readDatasetFile({
    dataset: cell.dataset as FileDatasetConfig,
    baseDir: traceFixtures,
    field: "cells[0].dataset",
    seed: config.seed,
  });
  const run = await runCellVirtually({
    config,
    cell,
    file,
    profile: builtInProfile("noiseless"),
    serverSeed: 1,
    schedule: { kind: "real-time", reason: "configured" },
  });
  const timeScale = (datasets[name]!.time_scale as number) ?? 1;
  return { run, planned: traceArrivals(file.sessions!, 12).map((offset) => offset * timeScale) };
}

describe("a trace cell on its own clock", () => {
  for (const name of Object.keys(datasets))
    for (const endpoint of ["completions", "chat"] as const)
      it(`${name} on ${endpoint}: sessions start on the trace's timestamps, and a rate of 1000/s is not the target`, async () => {
        const { run, planned } = await replay(name, endpoint, 1000);
        const firstTurns = run.records.filter((record) => record.session!.turn === 0);
        expect(firstTurns).toHaveLength(12);
        const scheduled = firstTurns
          .sort((a, b) => a.session!.index - b.session!.index)
          .map((record) => record.scheduledMs);
        // To the microsecond the records keep.
        for (const [index, at] of scheduled.entries()) expect(at).toBeCloseTo(planned[index]!, 2);
        expect(run.records.every((record) => record.ok)).toBe(true);
        // The target is the trace's: its 12 sessions over the span of their arrivals.
        expect(run.file.load.targetRate).toBeCloseTo(12 / (planned.at(-1)! / 1000), 6);
        expect(run.file.load.achievedRate).toBeCloseTo(run.file.load.targetRate!, 6);
        expect(run.file.flags.clientBound, run.file.flags.clientBoundReason).toBe(false);
      });

  it("is not client-bound by a rate below the trace's either, and the run's prompts are the trace's lengths", async () => {
    const { run } = await replay("azure", "completions", 0.01);
    expect(run.file.flags.clientBound).toBe(false);
    // Each prompt is as given: the simulator counts one token a word.
    expect(run.records.map((record) => record.promptTokens).slice(0, 3)).toEqual([235, 72, 257]);
    const { run: chat } = await replay("azure", "chat", 0.01);
    // On chat the same text, with the chat template's tokens around it.
    expect(chat.records[0]!.promptTokens!).toBeGreaterThan(235);
  });
});
