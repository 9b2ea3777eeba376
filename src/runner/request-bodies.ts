import { scoresAnswers } from "../config/schema.js";
import { buildRequestBody, wantsPerChunkUsage } from "../workload/request-body.js";
import type { Phase, Workload, WorkloadRequest } from "../workload/workload.js";
import type { CellContext } from "./cell-context.js";
import type { LoadPlan } from "./load-plan.js";

/** One request's serialised body and what its record needs to know about what was asked. */
export interface RequestBody {
  bytes: Buffer;
  perChunkUsage: boolean;
  /** A greedy-output cell's request: the client keeps its output (config quality.greedy). */
  keepOutput: boolean;
  meta: {
    targetInputTokens: number | null;
    maxTokens: number;
    choices: number;
    prefixGroup: number | null;
    /** A task's reference and scorer: the answer is scored when the request finishes. */
    task?: WorkloadRequest["task"];
  };
}

export type BodyFor = (phase: Phase, index: number) => RequestBody;

/** Bodies are serialised before the measured phase when the run's size is known (up to this many). */
const prebuildLimit = 20_000;

/** The body of request `index` of a phase: the workload's request with the model, sampling and cache salt. */
export function requestBodies(context: CellContext, workload: Workload, cacheSalt: string | null): BodyFor {
  const { config } = context;
  // Greedy-output cells and task cells are sent greedy and keep their outputs (docs/quality.md).
  const greedyCell = config.quality.greedy?.cells.includes(context.cell.name) === true;
  const greedy =
    greedyCell || scoresAnswers(context.cell.dataset)
      ? { logprobs: greedyCell ? config.quality.greedy!.logprobs : 0 }
      : undefined;
  return (phase: Phase, index: number) => {
    const request = workload.request(index, phase);
    const body = buildRequestBody(request, {
      model: config.model.name,
      sampling: config.sampling,
      cacheSalt,
      greedy,
    });
    return {
      bytes: Buffer.from(JSON.stringify(body)),
      perChunkUsage: wantsPerChunkUsage(body),
      keepOutput: greedy !== undefined && phase === "measure",
      meta: {
        targetInputTokens: request.targetInputTokens,
        // What was asked, after sampling.extra_body (which may set max_tokens itself).
        maxTokens: Number.isSafeInteger(body.max_tokens) ? (body.max_tokens as number) : request.maxTokens,
        // Choices per request (extra_body may ask for n > 1): usage and chunks count all of them.
        choices: Number.isSafeInteger(body.n) && (body.n as number) > 1 ? (body.n as number) : 1,
        prefixGroup: request.prefixGroup,
        ...(request.task !== undefined ? { task: request.task } : {}),
      },
    };
  };
}

/** Serialise bodies before the clock starts when the size is known: the send path then only dispatches. */
export function prebuildMeasuredBodies(plan: LoadPlan, bodyFor: BodyFor): RequestBody[] | null {
  return plan.maxRequests !== null && plan.maxRequests <= prebuildLimit
    ? Array.from({ length: plan.maxRequests }, (_, index) => bodyFor("measure", index))
    : null;
}
