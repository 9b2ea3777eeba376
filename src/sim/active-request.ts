import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { AnswerPlan } from "./answer-plan.js";
import type { StepEvent } from "./engine.js";
import { writeEventChunk } from "./event-stream.js";
import type { HttpResponder } from "./http-responses.js";
import type { SimProfile } from "./profile.js";
import {
  ChunkWriter,
  completionResponse,
  deltaOf,
  doneEvent,
  errorBody,
  type GenerationRequest,
  logprobsJson,
  type ProtocolShape,
  streamErrorEvent,
  type TokenLogprobs,
  usageOf,
} from "./protocol.js";
import { tokenText, vocabularySize } from "./tokenizer.js";

export interface ChunkRecord {
  /** The response's `id` (cmpl-... / chatcmpl-...). */
  requestId: string;
  /** The client's `x-request-id` header, when sent. */
  clientRequestId: string | undefined;
  /** performance.timeOrigin + performance.now() when the chunk was handed to the socket (ms). */
  timeMs: number;
  /** Output tokens the chunk carries (0 for the role chunk, usage chunk, error event and [DONE]). */
  tokens: number;
  kind: "role" | "content" | "usage" | "error" | "done";
}

/** What a request in flight needs of the server that owns it (the SimServer). */
export interface RequestHost {
  readonly hung: boolean;
  readonly profile: SimProfile;
  readonly protocolShape: ProtocolShape;
  readonly options: { readonly recordChunkTimes: boolean };
  readonly chunkLog: ChunkRecord[];
  readonly responses: HttpResponder;
  /** The request finished normally (counts towards the injected exit and hang faults). */
  completed(request: ActiveRequest): void;
  /** The request is done without finishing (rejected): drop it from the server and the engine. */
  forget(request: ActiveRequest): void;
  /** The request ends early: the engine stops generating for it. */
  abort(request: ActiveRequest): void;
}

/**
 * A token's logprobs as the simulator gives them: the chosen (greedy) token first with the engine's
 * logprob, then k - 1 alternatives, each less likely than the one before it.
 */
function tokenLogprobs(event: StepEvent, text: string, k: number): TokenLogprobs {
  const top = [{ token: text, logprob: event.logprob }];
  for (let rank = 1; rank < k; rank++) {
    const alternative = (event.token + rank * 7919) % vocabularySize;
    top.push({
      token: tokenText(alternative, event.outputTokens === 1),
      logprob: event.logprob - 0.5 - rank,
    });
  }
  return { token: text, logprob: event.logprob, top: k > 0 ? top : [] };
}

/** The parts of an answer, each streamed in chunks of its own. */
type AnswerPart = "reasoning" | "tool-start" | "tool-arguments" | "content";

export interface FaultPlan {
  kind: "midstream" | "reset";
  afterTokens: number;
}

/** One generation request in flight: turns engine events into the response the client reads. */
export class ActiveRequest {
  readonly writer: ChunkWriter;
  private pendingText = "";
  private pendingTokens = 0;
  /** What the pending tokens are: each part of the answer goes in chunks of its own. */
  private pendingPart: AnswerPart = "content";
  /** Non-streamed: the reasoning text and the tool call's arguments so far. */
  private reasoningText = "";
  private toolArguments = "";
  /** Logprobs of the pending tokens (when the request asked for them), and the output characters sent. */
  private pendingLogprobs: TokenLogprobs[] = [];
  private sentChars = 0;
  private sentTokens = 0;
  /** SSE events produced by the current delivery, written together by flush(). */
  private outgoing = "";
  private lastEvent: StepEvent | undefined;
  /** In the server's flush list for the current delivery. */
  queued = false;
  private fullText = "";
  done = false;

  constructor(
    readonly server: RequestHost,
    readonly req: GenerationRequest,
    readonly res: ServerResponse,
    readonly id: string,
    readonly created: number,
    readonly clientRequestId: string | undefined,
    readonly fault: FaultPlan | undefined,
    /** A built-in task's answer words (sim/tasks.ts): the text of the first output tokens. */
    readonly answer: readonly string[] | null = null,
    /** Reasoning before the answer and a tool call as the answer (sim/answer-plan.ts). */
    readonly plan: AnswerPlan = { reasoningTokens: 0, toolCall: null },
  ) {
    this.writer = new ChunkWriter(req.endpoint, id, created, req.model, server.protocolShape);
  }

  start(): void {
    if (!this.req.stream) return;
    this.server.responses.writeHead(this.res, 200, "text/event-stream; charset=utf-8", this.req.endpoint);
    // Headers go out now, as vLLM's streaming response sends them before the first token; otherwise Node
    // holds them for the first chunk and that chunk leaves later than the time recorded for it.
    this.res.flushHeaders();
    if (this.fault?.afterTokens === 0) this.applyFault();
  }

  /** Which part of the answer output token `index` (1-based) is, and its text. */
  private partOf(event: StepEvent): { part: AnswerPart; text: string } {
    const index = event.outputTokens;
    const reasoning = this.plan.reasoningTokens;
    const call = this.plan.toolCall;
    if (event.eos) return { part: "content", text: "" };
    if (index <= reasoning) return { part: "reasoning", text: tokenText(event.token, index === 1) };
    if (call !== null && index === reasoning + 1) return { part: "tool-start", text: "" };
    if (call !== null && index <= reasoning + 1 + call.pieces.length)
      return { part: "tool-arguments", text: call.pieces[index - reasoning - 2]! };
    const answerIndex = index - reasoning - 1;
    const answerWord = this.answer !== null && !event.diverged ? this.answer[answerIndex] : undefined;
    const first = answerIndex === 0;
    return {
      part: "content",
      text:
        answerWord !== undefined ? (first ? answerWord : ` ${answerWord}`) : tokenText(event.token, first),
    };
  }

  onEvent(event: StepEvent): void {
    if (this.done || this.server.hung) return;
    const { part, text } = this.partOf(event);
    let finish: string | null = event.finishReason ?? null;
    // vLLM reports a stop after a tool call as tool_calls.
    if (finish === "stop" && this.plan.toolCall !== null && event.outputTokens > this.plan.reasoningTokens)
      finish = "tool_calls";
    if (!this.req.stream) {
      if (part === "reasoning") this.reasoningText += text;
      else if (part === "tool-arguments") this.toolArguments += text;
      else if (part === "content") this.fullText += text;
      this.sentTokens = event.outputTokens;
      if (this.fault && this.sentTokens >= this.fault.afterTokens && this.fault.kind === "reset") {
        this.applyFault();
        return;
      }
      if (finish) this.finishPlain(finish, event.outputTokens, this.cachedTokens(event));
      return;
    }
    if (event.first && this.req.endpoint === "chat") {
      this.outgoing += this.writer.role(
        this.req.continuousUsage ? usageOf(event.promptTokens, 0) : undefined,
      );
      this.record("role", 0);
    }
    // A part of its own starts: what is pending goes first, as its own chunk.
    if (this.pendingTokens > 0 && part !== this.pendingPart && this.lastEvent)
      this.outgoing += this.contentChunk(this.lastEvent, null);
    this.pendingPart = part;
    this.pendingText += text;
    this.pendingTokens++;
    if (this.req.logprobs !== null) this.pendingLogprobs.push(tokenLogprobs(event, text, this.req.logprobs));
    this.lastEvent = event;
    if (finish !== null) {
      this.finishStream(event, finish);
      return;
    }
    // A fault fires at its token, also when this delivery carries later steps (coalesce_late_tokens
    // merges them) whose last token would otherwise end the stream before the fault.
    const fault = this.fault;
    if (
      fault &&
      this.sentTokens + this.pendingTokens >= fault.afterTokens &&
      this.pendingTokens >= this.server.profile.tokens_per_chunk
    ) {
      this.flush();
    }
  }

  /**
   * Sends what this delivery's events produced as one write: one step's tokens (one token, or a step's
   * accepted drafts). With coalesce_late_tokens a delivery carries every step already due when the
   * simulator was late, and their tokens go as one chunk (as vLLM V1's output collector merges outputs its
   * lagging front end has not sent yet); by default each late step is its own delivery and chunk.
   */
  flush(): void {
    if (this.done || this.server.hung || !this.req.stream) return;
    const event = this.lastEvent;
    if (event && this.pendingTokens >= this.server.profile.tokens_per_chunk) {
      this.outgoing += this.contentChunk(event, null);
    }
    if (this.outgoing === "") return;
    writeEventChunk(this.res, this.outgoing);
    this.outgoing = "";
    if (this.fault && this.sentTokens >= this.fault.afterTokens) this.applyFault();
  }

  private contentChunk(event: StepEvent, finish: string | null): string {
    const usage = this.req.continuousUsage ? usageOf(event.promptTokens, event.outputTokens) : undefined;
    const logprobs =
      this.req.logprobs !== null
        ? logprobsJson(this.req.endpoint, this.pendingLogprobs, this.sentChars)
        : null;
    const chunk = this.writer.content(this.pendingText, finish, usage, logprobs, this.pendingDelta());
    this.record("content", this.pendingTokens);
    this.sentTokens += this.pendingTokens;
    this.sentChars += this.pendingText.length;
    this.pendingText = "";
    this.pendingTokens = 0;
    this.pendingLogprobs = [];
    return chunk;
  }

  /** The chat delta of the pending tokens when they are not content (null: content). */
  private pendingDelta(): string | null {
    const call = this.plan.toolCall;
    switch (this.pendingPart) {
      case "content":
        return null;
      case "reasoning":
        return deltaOf({
          kind: "reasoning",
          field: this.server.protocolShape.reasoningField,
          text: this.pendingText,
        });
      case "tool-start":
        return deltaOf({ kind: "tool-start", id: call!.id, name: call!.name });
      case "tool-arguments":
        return deltaOf({ kind: "tool-arguments", text: this.pendingText });
    }
  }

  /** Reasoning tokens of the output so far (sent in usage when the answer policy reasons). */
  private reasoningTokensAt(outputTokens: number): number | undefined {
    const reasoning = this.plan.reasoningTokens;
    return reasoning > 0 ? Math.min(reasoning, outputTokens) : undefined;
  }

  private finishStream(event: StepEvent, finish: string): void {
    let out = this.outgoing + this.contentChunk(event, finish);
    this.outgoing = "";
    if (this.req.includeUsage) {
      out += this.writer.usage(
        usageOf(
          event.promptTokens,
          event.outputTokens,
          this.cachedTokens(event),
          this.reasoningTokensAt(event.outputTokens),
        ),
      );
      this.record("usage", 0);
    }
    out += doneEvent;
    this.record("done", 0);
    this.done = true;
    this.res.end(out);
    this.server.completed(this);
  }

  private cachedTokens(event: StepEvent): number | undefined {
    return this.server.profile.enable_prompt_tokens_details ? event.cachedPromptTokens : undefined;
  }

  private finishPlain(finish: string, completionTokens: number, cachedTokens: number | undefined): void {
    this.done = true;
    const body = completionResponse(
      this.req,
      this.id,
      this.created,
      this.fullText,
      finish,
      completionTokens,
      cachedTokens,
      this.server.protocolShape,
      {
        reasoning: this.plan.reasoningTokens > 0 ? this.reasoningText : null,
        reasoningTokens: this.reasoningTokensAt(completionTokens) ?? 0,
        toolCall:
          this.plan.toolCall !== null && completionTokens > this.plan.reasoningTokens
            ? { id: this.plan.toolCall.id, name: this.plan.toolCall.name, arguments: this.toolArguments }
            : null,
      },
    );
    this.server.responses.sendJson(this.res, 200, body, this.req.endpoint);
    this.server.completed(this);
  }

  /** The engine gave up on the request (it can never fit in the KV cache). */
  reject(): void {
    if (this.done) return;
    this.done = true;
    const message = "The request cannot fit in the KV cache and was aborted.";
    if (this.req.stream) {
      this.record("error", 0);
      this.record("done", 0);
      this.res.end(streamErrorEvent(500, message) + doneEvent);
    } else {
      this.server.responses.sendJson(this.res, 500, errorBody(500, message), this.req.endpoint);
    }
    this.server.forget(this);
  }

  private applyFault(): void {
    const fault = this.fault!;
    this.done = true;
    this.server.abort(this);
    if (fault.kind === "reset") {
      const socket = this.res.socket as (Socket & { resetAndDestroy?: () => void }) | null;
      if (socket?.resetAndDestroy) socket.resetAndDestroy();
      else socket?.destroy();
      return;
    }
    this.record("error", 0);
    this.record("done", 0);
    this.res.end(streamErrorEvent(500, "Simulated fault: the engine failed mid-stream.") + doneEvent);
  }

  private record(kind: ChunkRecord["kind"], tokens: number): void {
    if (!this.server.options.recordChunkTimes) return;
    this.server.chunkLog.push({
      requestId: this.id,
      clientRequestId: this.clientRequestId,
      timeMs: performance.timeOrigin + performance.now(),
      tokens,
      kind,
    });
  }
}
