import { describe, expect, it } from "vitest";
import { runCellVirtually } from "../../src/app/virtual-run.js";
import { configSchema } from "../../src/config/schema.js";
import { fanOutTimes } from "../../src/metrics/fan-out-metrics.js";
import { runSession, type TurnAnswer, type TurnRequest } from "../../src/runner/session-runner.js";
import { applyOverrides, builtInProfile } from "../../src/sim/index.js";
import { createWorkload } from "../../src/workload/workload.js";
import { VirtualClock } from "../util/virtual-clock.js";

function config(dataset: Record<string, unknown>, load: Record<string, unknown>, requests = 1) {
  return configSchema.parse({
    version: 1,
    seed: 11,
    server: { kind: "sim" },
    model: { name: "m" },
    sampling: { temperature: 0, ignore_eos: true },
    cells: [{ name: "agents", endpoint: "chat", dataset, load, size: { requests }, prefix: "reuse" }],
  });
}

/** Three turns; the second fans out to three branches, whose tools are the session's. */
const fanOutSession = {
  type: "sessions",
  turns: 3,
  message_tokens: 20,
  output_tokens: 10,
  system_prompt_tokens: 30,
  think_time_s: 0.5,
  tools: { names: ["grep"], latency_s: 0.2, result_tokens: 5 },
  fan_out: {
    turns: [2],
    branches: 3,
    message_tokens: { distribution: "uniform", min: 5, max: 15 },
    output_tokens: { distribution: "uniform", min: 20, max: 90 },
    tools: true,
  },
};

interface Sent {
  at: number;
  request: TurnRequest;
}

/**
 * One session through runSession on a virtual clock, against a scripted server: an answer takes its
 * max_tokens in ms; `toolCallFrom` says which requests answer with a tool call, `failing` which fail.
 */
async function runScripted(
  options: {
    toolCallFrom?: (request: TurnRequest) => boolean;
    failing?: (request: TurnRequest) => boolean;
  } = {},
) {
  const cell = config(fanOutSession, { type: "concurrency", concurrency: 1 }).cells[0]!;
  const script = createWorkload(cell, { seed: 11 }).sessions!.session(0, "measure");
  const clock = new VirtualClock();
  const sent: Sent[] = [];
  let next = 0;
  const send = async (request: TurnRequest): Promise<TurnAnswer> => {
    sent.push({ at: clock.now(), request });
    const endAt = clock.now() + request.maxTokens;
    await clock.sleepUntil(endAt);
    const position = request.ticket.session;
    const calls = options.toolCallFrom?.(request) === true;
    return {
      endAt,
      ok: options.failing?.(request) !== true,
      text: `answer t${position.turn}${position.branch !== undefined ? ` b${position.branch}` : ""} r${position.toolRound}`,
      toolCalls: calls ? [{ id: `call-${request.ticket.index}`, name: "grep", arguments: "{}" }] : [],
    };
  };
  const end = await clock.runUntilSettled(
    runSession({
      script,
      ticket: { index: 0, stage: 0, scheduledAt: 0, readyAt: 0, slotAt: 0 },
      clock,
      nextIndex: () => next++,
      send,
    }),
  );
  return { script, sent, end };
}

describe("a fan-out turn on virtual time (the runner's join)", () => {
  it("sends every branch at once over the conversation so far and goes on after the slowest", async () => {
    const { script, sent, end } = await runScripted();
    const fanOut = script.turns[1]!.fanOut!;
    expect(sent.map((entry) => entry.request.ticket.session)).toEqual([
      { index: 0, turn: 0, turns: 3, toolRound: 0 },
      { index: 0, turn: 1, turns: 3, toolRound: 0, branch: 0, branches: 3 },
      { index: 0, turn: 1, turns: 3, toolRound: 0, branch: 1, branches: 3 },
      { index: 0, turn: 1, turns: 3, toolRound: 0, branch: 2, branches: 3 },
      { index: 0, turn: 2, turns: 3, toolRound: 0 },
    ]);
    const [first, ...rest] = sent;
    const branches = rest.slice(0, 3);
    const last = rest[3]!;
    // The branches leave together, the first turn's answer (10 ms) and the think time (500 ms) after it.
    for (const branch of branches) expect(branch.at).toBe(10 + 500);
    expect(branches.map((branch) => branch.request.maxTokens)).toEqual(
      fanOut.branches.map((branch) => branch.maxTokens),
    );
    // Each branch: the conversation so far, the turn's message and its own; the tools declared.
    const so_far = [...first!.request.messages, { role: "assistant", content: "answer t0 r0" }];
    branches.forEach((branch, index) => {
      expect(branch.request.messages).toEqual([
        ...so_far,
        { role: "user", content: script.turns[1]!.content },
        { role: "user", content: fanOut.branches[index]!.content },
      ]);
      expect(branch.request.tools).toEqual(script.tools!.definitions);
      expect(branch.request.targetMessageTokens).toBe(20 + fanOut.branches[index]!.messageTokens);
    });
    // The join: the next turn waits for the slowest branch and the think time, and reads every answer.
    const slowest = Math.max(...fanOut.branches.map((branch) => branch.maxTokens));
    expect(last.at).toBe(510 + slowest + 500);
    expect(last.request.messages.slice(-3)).toEqual([
      { role: "user", content: script.turns[1]!.content },
      { role: "assistant", content: "answer t1 b0 r0\n\nanswer t1 b1 r0\n\nanswer t1 b2 r0" },
      { role: "user", content: script.turns[2]!.content },
    ]);
    expect(end).toBe(last.at + 10);
  });

  it("runs a branch's tool rounds in the branch, and the join waits for them", async () => {
    const { script, sent } = await runScripted({
      toolCallFrom: (request) =>
        request.ticket.session.branch === 1 && request.ticket.session.toolRound === 0,
    });
    const fanOut = script.turns[1]!.fanOut!;
    const round = sent.find((entry) => entry.request.ticket.session.toolRound === 1)!;
    expect(round.request.ticket.session).toMatchObject({ turn: 1, branch: 1, toolRound: 1 });
    // The mocked tool answers 200 ms after the branch's first answer, in the branch's conversation.
    const branchEnd = 510 + fanOut.branches[1]!.maxTokens;
    expect(round.at).toBe(branchEnd + 200);
    expect(round.request.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: expect.any(String) });
    expect(round.request.messages.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ type: "function" }],
    });
    expect(round.request.messages.at(-3)).toEqual({
      role: "user",
      content: fanOut.branches[1]!.content,
    });
    const last = sent.at(-1)!;
    expect(last.request.ticket.session.turn).toBe(2);
    const ends = [0, 2].map((branch) => 510 + fanOut.branches[branch]!.maxTokens);
    ends.push(branchEnd + 200 + fanOut.branches[1]!.maxTokens);
    expect(last.at).toBe(Math.max(...ends) + 500);
    // The branch's final answer is the one the session reads; its tool round is not in the session.
    expect(last.request.messages.slice(-2, -1)).toEqual([
      { role: "assistant", content: "answer t1 b0 r0\n\nanswer t1 b1 r1\n\nanswer t1 b2 r0" },
    ]);
    expect(last.request.messages.some((message) => message.role === "tool")).toBe(false);
  });

  it("ends the session at a failed branch, once the other branches answered", async () => {
    const { script, sent, end } = await runScripted({
      failing: (request) => request.ticket.session.branch === 0,
    });
    expect(sent.map((entry) => entry.request.ticket.session.turn)).toEqual([0, 1, 1, 1]);
    expect(end).toBe(510 + Math.max(...script.turns[1]!.fanOut!.branches.map((branch) => branch.maxTokens)));
  });
});

describe("fan-out sessions on the simulator's engine (virtual time)", () => {
  const profile = applyOverrides(
    builtInProfile("gpu-shaped"),
    { max_model_len: 16384, num_gpu_blocks: 4096, enable_prompt_tokens_details: true, jitter_sigma: 0 },
    "test",
  );
  const dataset = {
    type: "sessions",
    turns: 4,
    message_tokens: 200,
    output_tokens: 32,
    system_prompt_tokens: 400,
    fan_out: { turns: [2, 4], branches: 4, message_tokens: 16, output_tokens: 64 },
  };
  const cell = config(dataset, { type: "concurrency", concurrency: 2 }, 12);

  it("serves the branches' shared prefix from the cache: one branch computes it, the others hit it", async () => {
    const run = await runCellVirtually({ config: cell, cell: cell.cells[0]!, profile, serverSeed: 1 });
    const block = profile.block_size;
    const byFanOut = new Map<string, typeof run.records>();
    for (const record of run.records) {
      const position = record.session!;
      if (position.branch === undefined) continue;
      const key = `${position.index}:${position.turn}`;
      byFanOut.set(key, [...(byFanOut.get(key) ?? []), record]);
    }
    expect(byFanOut.size).toBe(24);
    for (const [key, branches] of byFanOut) {
      expect(branches).toHaveLength(4);
      // The prefix every branch has: the conversation so far, the turn's message and the role token of
      // its own message; then the 16 words of its own and nothing else.
      const prefix = branches[0]!.promptTokens! - 16;
      for (const branch of branches) expect(branch.promptTokens).toBe(prefix + 16);
      const cached = branches.map((branch) => branch.cachedTokens!).sort((a, b) => a - b);
      // Sent at once, admitted in one step: the others find every full block of the shared prefix.
      for (const hit of cached.slice(1)) expect(hit, key).toBe(Math.floor(prefix / block) * block);
      expect(cached[0]!, key).toBeLessThan(cached[1]!);
    }
    const summary = run.file.sessions!;
    expect(summary.completed).toBe(12);
    expect(summary.fanOut).toMatchObject({ fanOuts: 24, completed: 24, branches: 96 });
    // Branches batched together finish together: 64 tokens in the same steps.
    expect(summary.fanOut!.completion.p50!).toBeGreaterThan(0);
    expect(summary.fanOut!.spread.p95!).toBeLessThan(summary.fanOut!.completion.p50! / 4);
    const times = fanOutTimes(run.records);
    expect(times.map((time) => time.completionMs).sort((a, b) => a! - b!)).toHaveLength(24);
    expect(run.file.sessions!.fanOut!.completion.count).toBe(24);
  });

  it("shows a server that runs one sequence at a time: the branches serialize", async () => {
    const concurrent = await runCellVirtually({ config: cell, cell: cell.cells[0]!, profile, serverSeed: 1 });
    const serial = await runCellVirtually({
      config: cell,
      cell: cell.cells[0]!,
      profile: applyOverrides(profile, { max_num_seqs: 1 }, "test"),
      serverSeed: 1,
    });
    const a = concurrent.file.sessions!.fanOut!;
    const b = serial.file.sessions!.fanOut!;
    // Four branches one after the other: about four times the wait for the slowest, and a spread of three.
    expect(b.completion.p50! / a.completion.p50!).toBeGreaterThan(2.5);
    expect(b.spread.p50!).toBeGreaterThan(a.completion.p50! * 2);
    expect(b.completed).toBe(24);
  });
});
