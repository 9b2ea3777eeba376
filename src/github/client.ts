import { getOctokit } from "@actions/github";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import Bottleneck from "bottleneck/light.js";
import { attemptsKey, failedAttemptLine, rateLimitWaitLine } from "./api-failure.js";

/** The REST + GraphQL client the GitHub adapters use; one type so every adapter can be handed a test one. */
export type GitHubClient = ReturnType<typeof getOctokit>;

/**
 * How the client meets GitHub's faults and limits (docs/action.md, "When GitHub fails"). Transient
 * failures (a 5xx answer, a dropped connection, an attempt past its deadline) are retried by
 * `@octokit/plugin-retry`; rate limits (a primary limit spent, `x-ratelimit-remaining: 0`; a secondary
 * limit, `retry-after`) by `@octokit/plugin-throttling`, which also spaces writes as GitHub asks. Every
 * wait is bounded, so a call that keeps failing ends within `worstCaseCallMs`.
 */
export interface GitHubCallPolicy {
  /** Retries of a call that failed transiently. */
  retries: number;
  /** The n-th retry waits n² of these. */
  backoffUnitMs: number;
  /** Deadline of one attempt, from sending the request to its last byte (GitHub ends its own work at 10 s). */
  attemptTimeoutMs: number;
  /** Retries of a call a rate limit refused. */
  rateLimitRetries: number;
  /** Longest wait for a rate limit to lift, in GitHub's seconds: a limit that resets later is not waited for. */
  maxRateLimitWaitS: number;
  /** One of GitHub's seconds (`retry-after`, `x-ratelimit-reset`) here: 1000 ms; tests shrink it. */
  secondMs: number;
  /** Least time between two writes (GitHub: about a second between POST, PATCH, PUT and DELETE requests). */
  writeSpacingMs: number;
  /** Least time between two writes that notify people (a new comment). */
  notificationSpacingMs: number;
}

export const defaultGitHubCallPolicy: GitHubCallPolicy = {
  retries: 3,
  backoffUnitMs: 1000,
  attemptTimeoutMs: 20_000,
  rateLimitRetries: 2,
  maxRateLimitWaitS: 60,
  secondMs: 1000,
  writeSpacingMs: 1000,
  notificationSpacingMs: 3000,
};

/**
 * The longest one call can take before its error reaches the caller: each rate-limit round is up to
 * `retries` + 1 attempts, each at most its deadline, with the backoffs between them; the rounds are
 * separated by rate-limit waits of at most `maxRateLimitWaitS`. Spacing of writes (a few seconds) aside.
 */
export function worstCaseCallMs(policy: GitHubCallPolicy): number {
  let backoff = 0;
  for (let n = 1; n <= policy.retries; n++) backoff += n * n * policy.backoffUnitMs;
  const round = (policy.retries + 1) * policy.attemptTimeoutMs + backoff;
  return (
    (policy.rateLimitRetries + 1) * round +
    policy.rateLimitRetries * policy.maxRateLimitWaitS * policy.secondMs
  );
}

/** Statuses that a retry cannot change (plus 403/429, which are the throttling plugin's to judge). */
const notRetried = [400, 401, 403, 404, 409, 410, 422, 429, 451];

export interface GitHubClientOptions {
  policy?: GitHubCallPolicy;
  /** Where retries and rate-limit waits are told (the job log); silent without it. */
  log?: (line: string) => void;
}

type OctokitPlugin = NonNullable<Parameters<typeof getOctokit>[2]>;

/**
 * Innermost, so it sees every attempt: gives each its own deadline, counts the attempts of a call (the
 * count rides on its error, for messages) and tells the log about an attempt that failed transiently.
 */
function attemptDeadline(policy: GitHubCallPolicy, log: ((line: string) => void) | undefined): OctokitPlugin {
  // Per call (Octokit hands every hook the same options object for each of a call's attempts): the
  // attempts so far and the caller's own signal.
  const calls = new WeakMap<object, { attempts: number; own: AbortSignal | undefined }>();
  return (octokit) => {
    octokit.hook.wrap("request", async (request, options) => {
      const call = calls.get(options) ?? { attempts: 0, own: options.request?.signal };
      call.attempts++;
      calls.set(options, call);
      const deadline = AbortSignal.timeout(policy.attemptTimeoutMs);
      // Set on the shared options: the hooks inside this one (auth) read them, not an argument.
      options.request = {
        ...options.request,
        signal: call.own ? AbortSignal.any([call.own, deadline]) : deadline,
      };
      try {
        return await request(options);
      } catch (error) {
        if (typeof error === "object" && error !== null)
          Object.assign(error, { [attemptsKey]: call.attempts });
        const line = failedAttemptLine(error, call.attempts);
        if (line && log) log(line);
        throw error;
      }
    });
    return {};
  };
}

/**
 * `baseUrl` is passed explicitly because `@actions/github` computes its default from GITHUB_API_URL
 * once, at import; the caller's value (from the context) is the one that must win.
 */
export function createGitHubClient(
  token: string,
  apiUrl: string,
  options: GitHubClientOptions = {},
): GitHubClient {
  const policy = options.policy ?? defaultGitHubCallPolicy;
  const { log } = options;
  const onLimit =
    (kind: "primary" | "secondary") =>
    (
      retryAfterS: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      const retrying = retryCount < policy.rateLimitRetries && retryAfterS <= policy.maxRateLimitWaitS;
      log?.(rateLimitWaitLine(kind, `${request.method} ${request.url}`, retryAfterS, retrying));
      return retrying;
    };
  return getOctokit(
    token,
    {
      baseUrl: apiUrl.replace(/\/+$/, ""),
      retry: { retries: policy.retries, retryAfterBaseValue: policy.backoffUnitMs, doNotRetry: notRetried },
      throttle: {
        retryAfterBaseValue: policy.secondMs,
        fallbackSecondaryRateRetryAfter: 60,
        // This client's own writes: the plugin's default groups are shared by every client of the process.
        write: new Bottleneck.Group({ maxConcurrent: 1, minTime: policy.writeSpacingMs }),
        notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: policy.notificationSpacingMs }),
        onRateLimit: onLimit("primary"),
        onSecondaryRateLimit: onLimit("secondary"),
      },
    },
    attemptDeadline(policy, log),
    retry,
    throttling,
  );
}
