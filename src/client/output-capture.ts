/**
 * The outputs of a request kept for the greedy-output check (docs/quality.md): the text, and where the
 * server returned logprobs, the chosen tokens and their logprobs. Only a quality cell's requests capture
 * (a few hundred at low load), so each choices chunk is parsed as JSON here, off the measured path of
 * every other cell.
 *
 * Shapes read (vLLM `vllm/entrypoints/openai/protocol.py`, `CompletionLogProbs` and `ChatCompletionLogProbs`,
 * commit 0052bed3; the OpenAI API's): completions `choices[0].text` with `choices[0].logprobs.tokens` /
 * `.token_logprobs`; chat `choices[0].delta.content` with `choices[0].logprobs.content[] = {token, logprob}`.
 */
export interface CapturedOutput {
  text: string;
  /** The chosen tokens as the server spelled them; null when no chunk carried logprobs. */
  tokens: string[] | null;
  logprobs: (number | null)[] | null;
}

/** Text kept per request: 64 KiB, then the rest is dropped and `truncated` set (documented limit). */
export const capturedTextLimit = 64 * 1024;

export class OutputCapture {
  /**
   * Text only (a session's turn: its answer goes back in the next turn's messages): the stream reader
   * hands over each chunk's answer text (addText), no chunk is parsed and no logprobs are kept.
   */
  readonly textOnly: boolean;
  private readonly parts: string[] = [];
  private length = 0;
  truncated = false;
  private tokens: string[] | null = null;
  private logprobs: (number | null)[] | null = null;

  constructor(options: { textOnly?: boolean } = {}) {
    this.textOnly = options.textOnly === true;
  }

  /** One choices chunk's JSON text. An unreadable chunk adds nothing (the stream reader reports it). */
  add(json: string): void {
    let event: unknown;
    try {
      event = JSON.parse(json);
    } catch {
      return;
    }
    const choice = (event as { choices?: unknown[] } | null)?.choices?.[0] as
      | Record<string, unknown>
      | undefined;
    if (!choice || typeof choice !== "object") return;
    const delta = choice.delta as Record<string, unknown> | undefined;
    const text = typeof choice.text === "string" ? choice.text : delta?.content;
    if (typeof text === "string" && text.length > 0) this.addText(text);
    const logprobs = choice.logprobs as Record<string, unknown> | null | undefined;
    if (!logprobs || typeof logprobs !== "object") return;
    if (Array.isArray(logprobs.tokens) && Array.isArray(logprobs.token_logprobs)) {
      logprobs.tokens.forEach((token, i) => {
        this.addToken(String(token), numberOrNull(logprobs.token_logprobs as unknown[], i));
      });
    } else if (Array.isArray(logprobs.content)) {
      for (const entry of logprobs.content as Record<string, unknown>[]) {
        const value = entry?.logprob;
        this.addToken(
          String(entry?.token ?? ""),
          typeof value === "number" && Number.isFinite(value) ? value : null,
        );
      }
    }
  }

  /** Answer text, kept up to capturedTextLimit. */
  addText(text: string): void {
    if (this.truncated) return;
    const room = capturedTextLimit - this.length;
    if (text.length > room) {
      this.parts.push(text.slice(0, room));
      this.length = capturedTextLimit;
      this.truncated = true;
      return;
    }
    this.parts.push(text);
    this.length += text.length;
  }

  private addToken(token: string, logprob: number | null): void {
    if (this.truncated) return;
    this.tokens ??= [];
    this.logprobs ??= [];
    this.tokens.push(token);
    this.logprobs.push(logprob);
  }

  result(): CapturedOutput {
    return { text: this.parts.join(""), tokens: this.tokens, logprobs: this.logprobs };
  }
}

function numberOrNull(values: unknown[], index: number): number | null {
  const value = values[index];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}
