/**
 * The quality checks' error rates on simulated PRs, through the real checks (src/compare/analyze/tasks.ts,
 * greedy.ts). Usage: npx tsx bench/quality.ts [--reps 2000] [--tasks 500] [--prompts 300]
 *
 * Task accuracy: each of `tasks` tasks is answered right by the baseline with probability 0.90 and by the
 * candidate with 0.87 (3 points lower) or 0.90 (no change). Two error models: "nested", one uniform draw
 * per task shared by both sides (as the simulator draws per prompt and model_revision, so a weaker model
 * fails a superset of the tasks), and "independent", a draw of its own per side (the most discordance the
 * same accuracies allow). Greedy outputs: `prompts` prompts, each candidate output changed with
 * probability 0.05 (or 0), the baseline's two runs identical; the defaults of quality.greedy. Prints the
 * share of PRs the check calls a regression, with its Monte-Carlo standard error; the task check alone and
 * in the gated family of a default comparison (it joins the speed checks' Holm family). Goals: at least
 * 80% of the -3-point PRs and at most 1% of the unchanged ones blocked; at least 95% of the 5%-changed PRs.
 */

import type { FamilyMember } from "../src/compare/analyze/gated-family.js";
import { greedyChecks } from "../src/compare/analyze/greedy.js";
import { taskChecks } from "../src/compare/analyze/tasks.js";
import { configSchema } from "../src/config/schema.js";
import type { RunOutput } from "../src/metrics/guards.js";
import { type RunRecord, runRecordFromRunFile } from "../src/metrics/run-record.js";
import { mulberry32 } from "../src/util/random.js";
import { makeRunFile } from "./kit/run-files.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const reps = option("reps", 2000);
const tasks = option("tasks", 500);
const prompts = option("prompts", 300);
const quality = configSchema.shape.quality.parse({ greedy: { cells: ["chat"] } });
const alpha = 0.05;

const rate = (count: number) => {
  const p = count / reps;
  return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / reps)).toFixed(1)}`;
};

function run(index: number, outputs: RunOutput[]): RunRecord {
  return { ...runRecordFromRunFile(makeRunFile({ run: index }), `run-${index}`), outputs };
}

const scored = (correct: boolean[]): RunOutput[] =>
  correct.map((right, index) => ({
    index,
    ok: true,
    finishReason: "stop",
    text: "",
    tokens: null,
    logprobs: null,
    task: { reference: "", correct: right },
  }));

/**
 * The other tests of the gated family the task check joins (src/compare/analyze/gated-family.ts): `others`
 * clean speed tests whose regression p is 1 (far inside the tolerance), so the task test is the family's
 * smallest p and Holm multiplies it by the family's size, the best case for a family that large.
 */
const cleanOthers = (others: number): FamilyMember[] =>
  Array.from({ length: others }, () => ({
    source: "speed",
    regression: { p: 1, minP: 0 },
    improvement: null,
  }));

function taskBlocks(candidateAccuracy: number, nested: boolean, seed: number, others = 0): number {
  const random = mulberry32(seed);
  let blocked = 0;
  for (let rep = 0; rep < reps; rep++) {
    const base: boolean[] = [];
    const cand: boolean[] = [];
    for (let i = 0; i < tasks; i++) {
      const u = random();
      base.push(u < 0.9);
      cand.push((nested ? u : random()) < candidateAccuracy);
    }
    const checks = taskChecks(
      [{ cell: "chat", base: [run(0, scored(base))], cand: [run(0, scored(cand))], tooFew: false }],
      {
        tasks: quality.tasks,
        alpha,
        confidence: 0.95,
      },
      cleanOthers(others),
    );
    if (checks?.[0]?.verdict === "regression") blocked++;
  }
  return blocked;
}

function greedyBlocks(changedShare: number, seed: number): number {
  const random = mulberry32(seed);
  const words = (i: number, tag: string) => `w${i} ${tag}1 ${tag}2 ${tag}3 ${tag}4 ${tag}5 ${tag}6 ${tag}7`;
  const output = (index: number, text: string): RunOutput => ({
    index,
    ok: true,
    finishReason: "stop",
    text,
    tokens: null,
    logprobs: null,
  });
  const baseline = Array.from({ length: prompts }, (_, i) => output(i, words(i, "a")));
  let blocked = 0;
  for (let rep = 0; rep < reps; rep++) {
    // A changed output keeps its first half and changes from a seeded position on (like the simulator).
    const candidate = baseline.map((o, i) =>
      random() < changedShare
        ? output(
            i,
            `${o.text
              .split(" ")
              .slice(0, 1 + Math.floor(random() * 7))
              .join(" ")} z`,
          )
        : o,
    );
    const checks = greedyChecks(
      [
        {
          cell: "chat",
          base: [run(0, baseline), run(1, baseline)],
          cand: [run(0, candidate)],
          tooFew: false,
        },
      ],
      quality.greedy,
      [],
    );
    if (checks?.[0]?.verdict === "regression") blocked++;
  }
  return blocked;
}

console.log(
  `task accuracy, ${tasks} built-in tasks, baseline 90%, tolerance ${quality.tasks.tolerance_points * 100} points, alpha ${alpha}, ${reps} PRs each`,
);
for (const others of [0, 15]) {
  console.log(
    others === 0
      ? "  alone (a gated family of 1: a config of a tasks cell only)"
      : `  beside ${others} clean gated speed tests (3 speed cells x 5 metrics: a gated family of ${others + 1})`,
  );
  for (const nested of [true, false]) {
    const model = nested ? "nested errors     " : "independent errors";
    console.log(
      `    ${model}  -3 points: blocked ${rate(taskBlocks(0.87, nested, 11, others))}   no change: blocked ${rate(taskBlocks(0.9, nested, 12, others))}`,
    );
  }
}
console.log(`greedy outputs, ${prompts} prompts, quality.greedy defaults, ${reps} PRs each`);
console.log(
  `  5% of outputs changed: blocked ${rate(greedyBlocks(0.05, 21))}   none changed: blocked ${rate(greedyBlocks(0, 22))}`,
);
