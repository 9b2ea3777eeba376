import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mixSeed } from "../util/random.js";
import { ActiveRequest, type FaultPlan } from "./active-request.js";
import { planAnswer } from "./answer-plan.js";
import { headerValue, readJson } from "./body-reader.js";
import { hashTokens } from "./engine.js";
import {
  type Endpoint,
  errorBody,
  type GenerationRequest,
  ProtocolError,
  parseGenerationRequest,
} from "./protocol.js";
import type { RouteHost } from "./route-host.js";
import { promptText, taskAnswer } from "./tasks.js";

/**
 * POST /v1/completions and /v1/chat/completions: the request checked and parsed, the injected faults
 * drawn, the response id chosen as vLLM does, and the request handed to the engine; the response is
 * written by its ActiveRequest as the engine produces tokens.
 *
 * `receivedAt` is when the request's headers were parsed: the engine sees the request from then, so
 * reading the body, tokenizing and checking it (the simulator's own work, not part of the modelled
 * server) do not add to its TTFT.
 */
export async function generate(
  server: RouteHost,
  endpoint: Endpoint,
  req: IncomingMessage,
  res: ServerResponse,
  receivedAt: number,
): Promise<void> {
  const handler = endpoint === "chat" ? "/v1/chat/completions" : "/v1/completions";
  const body = await readJson(req);
  if (server.hung) return;
  const accepted = acceptRequest(server, endpoint, body);
  if ("status" in accepted) {
    server.responses.sendJson(res, accepted.status, accepted.error, handler);
    return;
  }
  const parsed = accepted.parsed;
  const fault = drawFault(server, parsed);
  const { id, clientRequestId } = responseId(server, endpoint, req, accepted.raw);
  const p = server.profile;
  // A built-in task is answered (sim/tasks.ts): greedy, so per prompt and model_revision.
  const answer = taskAnswer(
    promptText(accepted.raw),
    p.task_accuracy,
    mixSeed(hashTokens(parsed.promptTokens), p.model_revision),
  );
  // Reasoning and tool calls (chat only): the seeded answer policy; a task's answer takes no tool call.
  const plan =
    endpoint === "chat"
      ? planAnswer(hashTokens(parsed.promptTokens), parsed.seed, answer === null ? parsed.tools : [], p)
      : { reasoningTokens: 0, toolCall: null };
  const active = new ActiveRequest(
    server,
    parsed,
    res,
    id,
    Math.floor(Date.now() / 1000),
    clientRequestId,
    fault,
    answer,
    plan,
  );
  server.active.set(id, active);
  server.engine.addRequest(
    {
      id,
      promptTokens: parsed.promptTokens,
      maxTokens: parsed.maxTokens,
      minTokens: parsed.minTokens,
      ignoreEos: parsed.ignoreEos,
      seed: parsed.seed,
      cacheSalt: parsed.cacheSalt,
      temperature: parsed.temperature,
      ...(answer !== null
        ? { answerTokens: plan.reasoningTokens + answer.length }
        : plan.toolCall !== null
          ? // The call's first delta, then one token per piece of its arguments, then EOS.
            { answerTokens: plan.reasoningTokens + 1 + plan.toolCall.pieces.length }
          : {}),
      ...(plan.reasoningTokens > 0 ? { reasoningTokens: plan.reasoningTokens } : {}),
    },
    receivedAt,
  );
  // A write racing a client reset reports the error here; the close handler does the cleanup.
  res.on("error", () => undefined);
  res.on("close", () => {
    if (!active.done) {
      active.done = true;
      server.abort(active);
    }
  });
  active.start();
  if (!active.done) server.loop.wake(receivedAt);
}

/**
 * The request parsed, or the error status it gets: the server still starting or its engine dead, a body
 * that is not JSON or not a valid request, or the injected error fault (drawn only for a valid request).
 */
function acceptRequest(
  server: RouteHost,
  endpoint: Endpoint,
  body: Awaited<ReturnType<typeof readJson>>,
): { parsed: GenerationRequest; raw: unknown } | { status: number; error: ReturnType<typeof errorBody> } {
  const p = server.profile;
  if (server.starting()) return { status: 503, error: errorBody(503, "The server is starting.") };
  if (p.engine_dead)
    return {
      status: 500,
      error: errorBody(500, "EngineCore encountered an issue. See stack trace for the root cause."),
    };
  if (!body.ok) return { status: 400, error: errorBody(400, `Invalid JSON body: ${body.error}`) };
  let parsed: GenerationRequest;
  try {
    parsed = parseGenerationRequest(endpoint, body.value, {
      servedModel: server.options.model,
      maxModelLen: p.max_model_len,
    });
  } catch (error) {
    if (error instanceof ProtocolError)
      return { status: error.status, error: errorBody(error.status, error.message, error.param) };
    throw error;
  }
  if (server.faultRandom.next() < p.fault_error_rate)
    return {
      status: p.fault_error_status,
      error: errorBody(p.fault_error_status, `Simulated fault: status ${p.fault_error_status}.`),
    };
  return { parsed, raw: body.value };
}

/** The injected stream fault of an accepted request: an error mid-stream, a connection reset, or none. */
function drawFault(server: RouteHost, parsed: GenerationRequest): FaultPlan | undefined {
  const p = server.profile;
  const faultDraw = server.faultRandom.next();
  if (parsed.stream && faultDraw < p.fault_midstream_error_rate)
    return { kind: "midstream", afterTokens: p.fault_after_tokens };
  if (faultDraw >= 1 - p.fault_reset_rate) return { kind: "reset", afterTokens: p.fault_after_tokens };
  return undefined;
}

/**
 * The response id, as vLLM makes it: the prefix plus X-Request-Id, else the body's request_id, else a
 * uuid (also when the wanted id is in use).
 */
function responseId(
  server: RouteHost,
  endpoint: Endpoint,
  req: IncomingMessage,
  raw: unknown,
): { id: string; clientRequestId: string | undefined } {
  const prefix = endpoint === "chat" ? "chatcmpl-" : "cmpl-";
  const clientRequestId = headerValue(req.headers["x-request-id"]);
  const bodyRequestId = (raw as { request_id?: unknown }).request_id;
  const base = clientRequestId ?? (typeof bodyRequestId === "string" ? bodyRequestId : undefined);
  const wanted = base !== undefined && base !== "" ? `${prefix}${base}` : undefined;
  const id =
    wanted !== undefined && !server.active.has(wanted) && !server.engine.knows(wanted)
      ? wanted
      : `${prefix}${randomUUID().replaceAll("-", "")}`;
  return { id, clientRequestId };
}
