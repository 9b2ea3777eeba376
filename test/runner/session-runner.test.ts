import { describe, expect, it } from "vitest";
import { runCellVirtually } from "../../src/app/virtual-run.js";
import { configSchema } from "../../src/config/schema.js";
import { applyOverrides, builtInProfile } from "../../src/sim/index.js";
import { createWorkload } from "../../src/workload/workload.js";

const profile = applyOverrides(
  builtInProfile("gpu-shaped"),
  { max_model_len: 16384, num_gpu_blocks: 4096, enable_prompt_tokens_details: true },
  "test",
);

function sessionConfig(seed: number, load: Record<string, unknown>) {
  return configSchema.parse({
    version: 1,
    seed,
    server: { kind: "sim" },
    model: { name: "m" },
    sampling: { temperature: 0, ignore_eos: true },
    cells: [
      {
        name: "agent",
        endpoint: "chat",
        dataset: {
          type: "sessions",
          turns: { distribution: "uniform", min: 1, max: 9 },
          message_tokens: { distribution: "uniform", min: 5, max: 60 },
          output_tokens: { distribution: "uniform", min: 3, max: 40 },
          system_prompt_tokens: 48,
          shared_system_prompt: 0.5,
          think_time_s: { distribution: "exponential", mean: 0.5 },
        },
        load,
        size: { requests: 40 },
        prefix: "reuse",
      },
    ],
  });
}

describe("sessions replayed on the simulator's engine (virtual time)", () => {
  for (const seed of [1, 2, 3]) {
    it(`sends turn k with every earlier turn's prompt and answer (seed ${seed})`, async () => {
      const config = sessionConfig(seed, { type: "rate", rate: 4, max_concurrency: 8 });
      const cell = config.cells[0]!;
      const run = await runCellVirtually({ config, cell, profile, serverSeed: seed });
      const workload = createWorkload(cell, { seed });
      const bySession = new Map<number, typeof run.records>();
      for (const record of run.records) {
        const session = record.session!;
        bySession.set(session.index, [...(bySession.get(session.index) ?? []), record]);
      }
      expect(bySession.size).toBe(40);
      let turnsSeen = 0;
      for (const [index, records] of bySession) {
        const script = workload.sessions!.session(index, "measure");
        records.sort((a, b) => a.session!.turn - b.session!.turn);
        expect(records.map((record) => record.session!.turn)).toEqual(script.turns.map((_, turn) => turn));
        // The simulator's chat template: each message is its role (one token) and its content.
        let context = script.system === null ? 0 : 1 + script.systemTokens!;
        records.forEach((record, turn) => {
          expect(record.ok).toBe(true);
          const message = 1 + script.turns[turn]!.messageTokens!;
          expect(record.promptTokens).toBe(context + message);
          context += message + 1 + record.outputTokens!;
          turnsSeen++;
        });
        // The next turn waits for the answer and the think time: never sent before the last one ended.
        for (let turn = 1; turn < records.length; turn++)
          expect(records[turn]!.sentMs).toBeGreaterThanOrEqual(records[turn - 1]!.endMs);
      }
      expect(turnsSeen).toBe(run.records.length);
      expect(turnsSeen).toBeGreaterThan(40);
    });
  }

  it("bounds sessions in flight by max_concurrency, each session one request at a time", async () => {
    const config = sessionConfig(5, { type: "rate", rate: 50, max_concurrency: 3 });
    const run = await runCellVirtually({ config, cell: config.cells[0]!, profile, serverSeed: 5 });
    // Requests in flight at any moment: never more than the sessions allowed in flight.
    const events = run.records.flatMap((record) => [
      { at: record.sentMs, delta: 1 },
      { at: record.endMs, delta: -1 },
    ]);
    events.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let inFlight = 0;
    let most = 0;
    for (const event of events) {
      inFlight += event.delta;
      most = Math.max(most, inFlight);
    }
    expect(most).toBe(3);
  });

  it("serves a later turn's conversation so far from the prefix cache", async () => {
    const config = sessionConfig(4, { type: "concurrency", concurrency: 2 });
    const run = await runCellVirtually({ config, cell: config.cells[0]!, profile, serverSeed: 4 });
    const block = profile.block_size;
    const byKey = new Map(
      run.records.map((record) => [`${record.session!.index}:${record.session!.turn}`, record]),
    );
    let later = 0;
    for (const record of run.records) {
      const previous = byKey.get(`${record.session!.index}:${record.session!.turn - 1}`);
      if (previous === undefined) continue;
      // Every full block of the previous turn's prompt is still cached (the cache is far from full).
      expect(record.cachedTokens).toBeGreaterThanOrEqual(Math.floor(previous.promptTokens! / block) * block);
      later++;
    }
    expect(later).toBeGreaterThan(20);
  });
});
