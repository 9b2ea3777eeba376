import { FailureError } from "../util/errors.js";

/**
 * What a failed GitHub call tells: the call, the status GitHub answered (or that none came), whether a
 * rate limit refused it and when that lifts, and how many attempts it made. One reading for every
 * adapter, so a rate limit is never taken for a missing permission and every message names its call.
 */

/** Where a failed call's error carries how many attempts the client made (client.ts sets it). */
export const attemptsKey = Symbol.for("vllm-perf-gate.github.attempts");

interface RequestErrorShape {
  status?: unknown;
  message?: unknown;
  request?: { method?: unknown; url?: unknown };
  response?: { headers?: Record<string, unknown>; data?: unknown };
  [attemptsKey]?: unknown;
}

function shapeOf(error: unknown): RequestErrorShape {
  return typeof error === "object" && error !== null ? (error as RequestErrorShape) : {};
}

/** HTTP status of an Octokit RequestError, or undefined for anything else (Octokit says 500 for no answer). */
export function httpStatusOf(error: unknown): number | undefined {
  const { status } = shapeOf(error);
  return typeof status === "number" ? status : undefined;
}

/** The status GitHub answered; undefined when no answer came (a dropped connection, a deadline). */
function answeredStatus(error: unknown): number | undefined {
  return shapeOf(error).response ? httpStatusOf(error) : undefined;
}

function header(error: unknown, name: string): string | undefined {
  const value = shapeOf(error).response?.headers?.[name];
  return typeof value === "string" ? value : undefined;
}

function messageOf(error: unknown): string {
  const { message } = shapeOf(error);
  return typeof message === "string" ? message : String(error);
}

export interface RateLimit {
  /** primary: the hourly budget is spent (`x-ratelimit-remaining: 0`); secondary: too many at once. */
  kind: "primary" | "secondary";
  /** When the primary limit resets (`x-ratelimit-reset`). */
  resetAt: Date | null;
  /** What `retry-after` asked for, in seconds. */
  retryAfterS: number | null;
}

/**
 * A refusal by a rate limit, as GitHub documents it
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit):
 * a 403 or 429 with `x-ratelimit-remaining: 0`, a `retry-after` header or "rate limit" in its message, or
 * a GraphQL answer whose error is `RATE_LIMITED`. Null for anything else.
 */
export function rateLimitOf(error: unknown): RateLimit | null {
  const status = answeredStatus(error);
  const data = shapeOf(error).response?.data as { errors?: { type?: unknown }[] } | undefined;
  const graphqlLimited = Array.isArray(data?.errors) && data.errors.some((e) => e?.type === "RATE_LIMITED");
  if (status !== 403 && status !== 429 && !graphqlLimited) return null;
  const spent = header(error, "x-ratelimit-remaining") === "0";
  const retryAfter = Number(header(error, "retry-after"));
  const retryAfterS = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null;
  const message = messageOf(error);
  if (!spent && retryAfterS === null && !/rate limit/i.test(message) && status !== 429 && !graphqlLimited)
    return null;
  const reset = Number(header(error, "x-ratelimit-reset"));
  return {
    kind: spent && !/secondary/i.test(message) ? "primary" : "secondary",
    resetAt: spent && Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : null,
    retryAfterS,
  };
}

/** A refusal for want of permission (401, or a 403 that is no rate limit): the token's grant, not load. */
export function isPermissionRefusal(error: unknown): boolean {
  const status = answeredStatus(error);
  return (status === 401 || status === 403) && rateLimitOf(error) === null;
}

/** `GET /repos/acme/serving/actions/runs`: the method and path of the call (no host, no query). */
function callOf(error: unknown): string | null {
  const { request } = shapeOf(error);
  if (typeof request?.method !== "string" || typeof request.url !== "string") return null;
  let path = request.url;
  try {
    path = new URL(request.url, "https://api.github.com").pathname;
  } catch {
    // Keep the URL as it is.
  }
  return `${request.method} ${decodeURIComponent(path)}`;
}

function attemptsOf(error: unknown): number | null {
  const attempts = shapeOf(error)[attemptsKey];
  return typeof attempts === "number" ? attempts : null;
}

/** GitHub's message without the documentation link Octokit appends, on one line. */
function briefMessage(error: unknown): string {
  const text = messageOf(error)
    .replace(/ - https:\/\/docs\.github\.com\S*$/, "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function utc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * One clause for a failed call: what was called, what GitHub answered (or that nothing came back) and,
 * for a rate limit, which one and when it lifts; with the attempts when there were several.
 */
export function describeCallFailure(error: unknown): string {
  const call = callOf(error) ?? "a GitHub API call";
  const attempts = attemptsOf(error);
  const tries = attempts !== null && attempts > 1 ? ` after ${attempts} attempts` : "";
  const status = answeredStatus(error);
  const limit = rateLimitOf(error);
  if (limit) {
    const lifts = limit.resetAt
      ? `; it resets at ${utc(limit.resetAt)}`
      : limit.retryAfterS !== null
        ? `; GitHub asked to wait ${limit.retryAfterS} s`
        : "";
    const what = limit.kind === "primary" ? "its API rate limit is spent" : "a secondary rate limit";
    return `${call} was refused${tries}: ${what} (HTTP ${status ?? "error"}${lifts}), not a missing permission`;
  }
  if (status !== undefined) return `${call} answered HTTP ${status} (${briefMessage(error)})${tries}`;
  return `${call} got no answer${tries} (${briefMessage(error)})`;
}

/** A transient failure the client retries: a 5xx answer, or no answer at all. */
function isTransient(error: unknown): boolean {
  const status = answeredStatus(error);
  return status === undefined ? callOf(error) !== null : status >= 500;
}

/** The job log's line for an attempt that failed transiently; null for answers a retry cannot change. */
export function failedAttemptLine(error: unknown, attempt: number): string | null {
  if (!isTransient(error)) return null;
  const status = answeredStatus(error);
  const what = status === undefined ? "no answer" : `HTTP ${status}`;
  return `GitHub: ${callOf(error)}: ${what} (${briefMessage(error)}) on attempt ${attempt}.`;
}

/** The job log's line for a rate limit met: waiting for it, or not (it lifts later than a job waits). */
export function rateLimitWaitLine(
  kind: "primary" | "secondary",
  call: string,
  retryAfterS: number,
  retrying: boolean,
): string {
  const limit = `GitHub: ${call} met the ${kind} rate limit`;
  return retrying
    ? `${limit}; retrying in ${retryAfterS} s.`
    : `${limit}; it lifts in ${retryAfterS} s, later than this job waits (or after its retries).`;
}

/**
 * A GitHub call that a step of the job depends on failed after the client's retries: the message names
 * the step, the call and the status (or the rate limit and when it lifts).
 */
export class GitHubCallError extends FailureError {
  constructor(
    readonly step: string,
    readonly failure: unknown,
  ) {
    super(`${step}: ${describeCallFailure(failure)}`);
  }
}

/** A failure in one clause: a failed call as `describeCallFailure` says it, anything else by its message. */
export function failureText(error: unknown): string {
  if (error instanceof GitHubCallError) return error.message;
  return callOf(error) ? describeCallFailure(error) : messageOf(error);
}
