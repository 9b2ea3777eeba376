import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import { createRng } from "../../util/random.js";
import { drawLength } from "../lengths.js";
import { builtInTask } from "../tasks.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";

// The tasks kind: the built-in task set, request i asking task i mod count, its answer scored.

export function tasksWorkload(
  dataset: DatasetConfigOf<"tasks">,
  { cell, seed, info, shape, stream }: KindContext,
): Workload {
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      // Warm-up asks other questions (its own stream), so it never warms the measured prompts.
      const taskIndex = phase === "warmup" ? dataset.count + index : index % dataset.count;
      const task = builtInTask(seed, cell.name, taskIndex, dataset.kinds);
      const rng = createRng(seed, cell.name, stream(phase), index);
      const maxTokens = drawLength(dataset.output_tokens, rng);
      return {
        ...shape({ index, phase, targetInputTokens: null, maxTokens, prefixGroup: null }, task.prompt),
        task: { reference: task.reference, scorer: task.scorer },
      };
    },
  };
}
