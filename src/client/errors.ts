import { describeConnectionFailure } from "../util/connection-errors.js";

/**
 * Failure kinds of one request. They are counted separately in run.json so a regression in errors is
 * never mistaken for a change in latency, and so a timeout is not confused with a refusal.
 */
export type ErrorKind =
  | `http_${number}`
  | "stream_error"
  | "timeout"
  | "reset"
  | "connect"
  | "incomplete"
  | "no_output"
  | "malformed"
  | "oversized_event"
  | "unsupported_encoding"
  | "aborted"
  | "other";

const resetCodes = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ECONNABORTED"]);
const connectCodes = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Maps a transport error (undici or Node) to a kind. */
export function classifyTransportError(error: unknown): ErrorKind {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (resetCodes.has(code)) return "reset";
      if (connectCodes.has(code)) return "connect";
      if (code === "UND_ERR_ABORTED") return "aborted";
    }
    current = (current as { cause?: unknown }).cause;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/other side closed|socket hang up|reset/i.test(message)) return "reset";
  if (/refused/i.test(message)) return "connect";
  return "other";
}

/**
 * A transport error's message for the record: for a failed connection, which address refused (or could
 * not be reached) and what to check (util/connection-errors.ts), else the error's own message.
 */
export function describeTransportError(error: unknown, url: string): string {
  return describeConnectionFailure(error, url) ?? describeError(error);
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
