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
  const arrival = receivedAt;
  if (server.hung) return;
  const p = server.profile;
  if (server.starting()) {
    server.responses.sendJson(res, 503, errorBody(503, "The server is starting."), handler);
    return;
  }
  if (p.engine_dead) {
    server.responses.sendJson(
      res,
      500,
      errorBody(500, "EngineCore encountered an issue. See stack trace for the root cause."),
      handler,
    );
    return;
  }
  if (!body.ok) {
    server.responses.sendJson(res, 400, errorBody(400, `Invalid JSON body: ${body.error}`), handler);
    return;
  }
  let parsed: GenerationRequest;
  try {
    parsed = parseGenerationRequest(endpoint, body.value, {
      servedModel: server.options.model,
      maxModelLen: p.max_model_len,
    });
  } catch (error) {
    if (error instanceof ProtocolError) {
      server.responses.sendJson(
        res,
        error.status,
        errorBody(error.status, error.message, error.param),
        handler,
      );
      return;
    }
    throw error;
  }
  const draw = server.faultRandom.next();
  if (draw < p.fault_error_rate) {
    server.responses.sendJson(
      res,
      p.fault_error_status,
      errorBody(p.fault_error_status, `Simulated fault: status ${p.fault_error_status}.`),
      handler,
    );
    return;
  }
  const faultDraw = server.faultRandom.next();
  let fault: FaultPlan | undefined;
  if (parsed.stream && faultDraw < p.fault_midstream_error_rate) {
    fault = { kind: "midstream", afterTokens: p.fault_after_tokens };
  } else if (faultDraw >= 1 - p.fault_reset_rate) {
    fault = { kind: "reset", afterTokens: p.fault_after_tokens };
  }
  const prefix = endpoint === "chat" ? "chatcmpl-" : "cmpl-";
  const clientRequestId = headerValue(req.headers["x-request-id"]);
  // As vLLM does: the id is the prefix plus X-Request-Id, else the body's request_id, else a uuid.
  const bodyRequestId = (body.value as { request_id?: unknown }).request_id;
  const base = clientRequestId ?? (typeof bodyRequestId === "string" ? bodyRequestId : undefined);
  const wanted = base !== undefined && base !== "" ? `${prefix}${base}` : undefined;
  const id =
    wanted !== undefined && !server.active.has(wanted) && !server.engine.knows(wanted)
      ? wanted
      : `${prefix}${randomUUID().replaceAll("-", "")}`;
  // A built-in task is answered (sim/tasks.ts): greedy, so per prompt and model_revision.
  const answer = taskAnswer(
    promptText(body.value),
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
    arrival,
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
  if (!active.done) server.loop.wake(arrival);
}
