import { describe, expect, it } from "vitest";
import { type CellConfig, configSchema } from "../../src/config/schema.js";
import type { DatasetFile } from "../../src/workload/dataset-file.js";
import { Conversation } from "../../src/workload/sessions.js";
import { createWorkload } from "../../src/workload/workload.js";

function cellWith(dataset: Record<string, unknown>, name = "agents"): CellConfig {
  return configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [
      {
        name,
        endpoint: "chat",
        dataset,
        load: { type: "concurrency", concurrency: 2 },
        size: { requests: 10 },
      },
    ],
  }).cells[0]!;
}

const generated = {
  type: "sessions",
  turns: { distribution: "uniform", min: 2, max: 8 },
  message_tokens: { distribution: "uniform", min: 5, max: 60 },
  output_tokens: { distribution: "uniform", min: 3, max: 40 },
  system_prompt_tokens: 24,
  think_time_s: { distribution: "exponential", mean: 1 },
};
const fanOut = {
  share: 0.3,
  branches: { min: 2, max: 5 },
  message_tokens: { distribution: "uniform", min: 4, max: 30 },
  output_tokens: { distribution: "uniform", min: 10, max: 90 },
};

const words = (text: string) => text.split(" ").length;

describe("fan-out branches of generated sessions (seeded)", () => {
  it("draws the fan-out turns, branch counts and lengths from the seed, and nothing else changes", () => {
    const plain = createWorkload(cellWith(generated), { seed: 7 }).sessions!;
    const fanned = createWorkload(cellWith({ ...generated, fan_out: fanOut }), { seed: 7 }).sessions!;
    const again = createWorkload(cellWith({ ...generated, fan_out: fanOut }), { seed: 7 }).sessions!;
    const other = createWorkload(cellWith({ ...generated, fan_out: fanOut }), { seed: 8 }).sessions!;
    let turns = 0;
    let fanOuts = 0;
    const counts = new Set<number>();
    for (let index = 0; index < 300; index++) {
      const script = fanned.session(index, "measure");
      expect(again.session(index, "measure")).toEqual(script);
      // The fan-outs come from a stream of their own: the session's turns are as without them.
      const without = plain.session(index, "measure");
      expect(script.turns.map(({ fanOut: _, ...turn }) => turn)).toEqual(
        without.turns.map(({ fanOut: _, ...turn }) => turn),
      );
      expect(without.turns.every((turn) => turn.fanOut === null)).toBe(true);
      for (const turn of script.turns) {
        turns++;
        if (turn.fanOut === null) continue;
        fanOuts++;
        counts.add(turn.fanOut.branches.length);
        expect(turn.fanOut.tools).toBe(false);
        for (const branch of turn.fanOut.branches) {
          expect(branch.messageTokens).toBeGreaterThanOrEqual(4);
          expect(branch.messageTokens).toBeLessThanOrEqual(30);
          // The simulator's tokenizer: one token per word.
          expect(words(branch.content)).toBe(branch.messageTokens);
          expect(branch.maxTokens).toBeGreaterThanOrEqual(10);
          expect(branch.maxTokens).toBeLessThanOrEqual(90);
        }
        // Each branch its own task.
        expect(new Set(turn.fanOut.branches.map((branch) => branch.content)).size).toBe(
          turn.fanOut.branches.length,
        );
      }
    }
    // About 30% of the turns, every count from 2 to 5.
    expect(fanOuts / turns).toBeGreaterThan(0.25);
    expect(fanOuts / turns).toBeLessThan(0.35);
    expect([...counts].sort()).toEqual([2, 3, 4, 5]);
    expect(other.session(0, "measure")).not.toEqual(fanned.session(0, "measure"));
    // Warm-up sessions are conversations of their own, fan-outs included.
    expect(fanned.session(0, "warmup")).not.toEqual(fanned.session(0, "measure"));
  });

  it("fans out exactly at the listed turns (1-based) that a session reaches", () => {
    const sessions = createWorkload(
      cellWith({
        ...generated,
        fan_out: { turns: [1, 4], branches: 3, message_tokens: 10, output_tokens: 20, tools: true },
        tools: { names: ["grep"] },
      }),
      { seed: 3 },
    ).sessions!;
    for (let index = 0; index < 50; index++) {
      const script = sessions.session(index, "measure");
      script.turns.forEach((turn, position) => {
        expect(turn.fanOut !== null, `session ${index} turn ${position}`).toBe(
          position === 0 || position === 3,
        );
        if (turn.fanOut === null) return;
        expect(turn.fanOut.tools).toBe(true);
        expect(turn.fanOut.branches.map((branch) => branch.maxTokens)).toEqual([20, 20, 20]);
      });
    }
  });

  it("gives ShareGPT conversations' turns generated branches, from the session's seed", () => {
    const file: DatasetFile = {
      path: "chats.json",
      sha256: "0".repeat(64),
      entries: [],
      skipped: 0,
      sessions: [
        {
          system: "be brief",
          turns: [
            { content: "first question", answer: "an answer", maxTokens: null },
            { content: "second question", answer: "another", maxTokens: null },
          ],
        },
      ],
    };
    const cell = cellWith({
      type: "sharegpt_sessions",
      path: "chats.json",
      fan_out: { turns: [2], branches: 2, message_tokens: 6, output_tokens: 30 },
    });
    const sessions = createWorkload(cell, { seed: 1, file }).sessions!;
    const script = sessions.session(0, "measure");
    expect(script.turns[0]!.fanOut).toBeNull();
    expect(script.turns[1]!.fanOut!.branches.map((branch) => words(branch.content))).toEqual([6, 6]);
    expect(createWorkload(cell, { seed: 1, file }).sessions!.session(0, "measure")).toEqual(script);
  });
});

describe("a fan-out turn in the conversation", () => {
  it("forks each branch from the conversation so far and joins the branches' answers in branch order", () => {
    const script = createWorkload(
      cellWith({
        ...generated,
        turns: 3,
        fan_out: { turns: [2], branches: 3, message_tokens: 10, output_tokens: 20 },
      }),
      { seed: 2 },
    ).sessions!.session(0, "measure");
    const conversation = new Conversation(script);
    const first = conversation.ask(0);
    conversation.answer("the first answer");
    const forks = [0, 1, 2].map((branch) => conversation.branch(1, branch));
    const shared = [...first, { role: "assistant", content: "the first answer" }];
    forks.forEach((fork, branch) => {
      expect(fork.messages).toEqual([
        ...shared,
        { role: "user", content: script.turns[1]!.content },
        { role: "user", content: script.turns[1]!.fanOut!.branches[branch]!.content },
      ]);
    });
    // A branch's tool round stays in the branch.
    forks[1]!.conversation.answer("", [{ id: "c1", name: "grep", arguments: "{}" }]);
    expect(forks[1]!.conversation.toolResults([{ id: "c1", content: "found" }])).toHaveLength(
      shared.length + 4,
    );
    conversation.join(1, ["one", "two", "three"]);
    expect(conversation.ask(2)).toEqual([
      ...shared,
      { role: "user", content: script.turns[1]!.content },
      { role: "assistant", content: "one\n\ntwo\n\nthree" },
      { role: "user", content: script.turns[2]!.content },
    ]);
  });
});
