import { isSessionDataset, scoresAnswers } from "../config/schema.js";
import type { Phase } from "../workload/phase.js";
import { buildRequestBody, forEndpoint, wantsPerChunkUsage } from "../workload/request-body.js";
import type { SessionSource } from "../workload/sessions.js";
import type { Workload, WorkloadRequest } from "../workload/workload.js";
import type { CellContext } from "./cell-context.js";
import type { LoadPlan } from "./load-plan.js";

/** One request's serialised body and what its record needs to know about what was asked. */
export interface RequestBody {
  bytes: Buffer;
  perChunkUsage: boolean;
  /**
   * The client keeps the output: text and logprobs for a greedy-output cell's request (config
   * quality.greedy), the answer text for a session's turn.
   */
  keepOutput: boolean | "text";
  /** The request's record keeps the output (a greedy-output or tasks cell's measured requests). */
  recordOutput: boolean;
  meta: {
    targetInputTokens: number | null;
    maxTokens: number;
    choices: number;
    prefixGroup: number | null;
    /** A task's reference and scorer: the answer is scored when the request finishes. */
    task?: WorkloadRequest["task"];
  };
}

type BodyFor = (phase: Phase, index: number) => RequestBody;

/** The body of one request of a phase (a session's turn is built as it is sent, from the conversation so far). */
type BodyOfRequest = (request: WorkloadRequest, phase: Phase) => RequestBody;

/** Bodies are serialised before the measured phase when the run's size is known (up to this many). */
const prebuildLimit = 20_000;

/** A cell's bodies: request `index` of a phase, and for a session dataset its sessions, built turn by turn. */
export interface CellBodies {
  bodyFor: BodyFor;
  sessions: { sessions: SessionSource; build: BodyOfRequest } | null;
}

/** Where a phase's requests come from: bodies by index, or sessions built turn by turn. */
export type PhaseBodies =
  | { kind: "requests"; bodyOf: (index: number) => RequestBody }
  | { kind: "sessions"; sessions: SessionSource; build: BodyOfRequest };

/** The body of request `index` of a phase: the workload's request with the model, sampling and cache salt. */
export function requestBodies(
  context: CellContext,
  workload: Workload,
  cacheSalt: string | null,
): CellBodies {
  const build = requestBodyBuilder(context, cacheSalt);
  return {
    bodyFor: (phase: Phase, index: number) => build(workload.request(index, phase), phase),
    sessions: workload.sessions === null ? null : { sessions: workload.sessions, build },
  };
}

/** A phase's bodies: its sessions, or request bodies by index (the prebuilt ones where there are). */
export function phaseBodies(
  bodies: CellBodies,
  phase: Phase,
  prebuilt: RequestBody[] | null = null,
): PhaseBodies {
  if (bodies.sessions !== null) return { kind: "sessions", ...bodies.sessions };
  return { kind: "requests", bodyOf: (index) => prebuilt?.[index] ?? bodies.bodyFor(phase, index) };
}

/**
 * A request's body with the model, sampling and cache salt. A session's turns keep their answers in the
 * client (the next turn sends them back), and in the record only where the cell keeps outputs anyway.
 */
function requestBodyBuilder(context: CellContext, cacheSalt: string | null): BodyOfRequest {
  const { config } = context;
  const sessions = isSessionDataset(context.cell.dataset);
  // Greedy-output cells and task cells are sent greedy and keep their outputs (docs/quality.md).
  const greedyCell = config.quality.greedy?.cells.includes(context.cell.name) === true;
  const greedy =
    greedyCell || scoresAnswers(context.cell.dataset)
      ? { logprobs: greedyCell ? config.quality.greedy!.logprobs : 0 }
      : undefined;
  return (request: WorkloadRequest, phase: Phase) => {
    // A trace's turn on the completions endpoint is sent as its prompt (the turn as given).
    const body = buildRequestBody(forEndpoint(request, context.cell.endpoint), {
      model: config.model.name,
      sampling: config.sampling,
      cacheSalt,
      greedy,
    });
    return {
      bytes: Buffer.from(JSON.stringify(body)),
      perChunkUsage: wantsPerChunkUsage(body),
      keepOutput: greedy !== undefined && phase === "measure" ? true : sessions ? "text" : false,
      recordOutput: greedy !== undefined && phase === "measure",
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

/**
 * Serialise bodies before the clock starts when the size is known: the send path then only dispatches. A
 * session's turns carry the answers before them, so their bodies are built as they are sent.
 */
export function prebuildMeasuredBodies(plan: LoadPlan, bodies: CellBodies): RequestBody[] | null {
  const bodyFor = bodies.bodyFor;
  return bodies.sessions === null && plan.maxRequests !== null && plan.maxRequests <= prebuildLimit
    ? Array.from({ length: plan.maxRequests }, (_, index) => bodyFor("measure", index))
    : null;
}
