import { GitHubCallError, isPermissionRefusal } from "./api-failure.js";
import type { GitHubClient } from "./client.js";

/**
 * One verdict comment per pull request (and per `key`, for several gates in one repository), found again
 * by a hidden, versioned marker AND by its author being the token's own identity: anyone can paste the
 * marker into a comment, only we can author ours. An identity that could not be learned is never guessed:
 * the comment is then the marker's comment by a bot account (which only an app installed on the
 * repository can author), and when two bots carry the marker nothing is written.
 */

const markerVersion = 1;
/** GitHub refuses longer comment bodies with 422 "Body is too long (maximum is 65536 characters)". */
export const commentBodyLimit = 65_536;

export function commentMarker(key: string): string {
  const safeKey = key.replace(/[^A-Za-z0-9_.-]/g, "_");
  return `<!-- vllm-perf-gate:v${markerVersion} key=${safeKey} -->`;
}

/**
 * The login the token acts as (the REST form of bots carries the `[bot]` suffix), or null for an app
 * installation token whose login GraphQL would not give (refused, or failing after the client's retries).
 */
export async function resolveTokenIdentity(client: GitHubClient): Promise<string | null> {
  try {
    // GET /user: https://docs.github.com/en/rest/users/users#get-the-authenticated-user (PATs only).
    const { data } = await client.rest.users.getAuthenticated();
    return data.login;
  } catch (error) {
    // Installation tokens are refused (403); anything else (a rate limit, a fault) is no answer at all.
    if (!isPermissionRefusal(error)) throw new GitHubCallError("finding the token's identity", error);
  }
  try {
    // Installation tokens (GITHUB_TOKEN, GitHub Apps) are refused GET /user but may ask GraphQL's viewer.
    const data = await client.graphql<{ viewer: { login: string } }>("query { viewer { login } }");
    return data.viewer.login;
  } catch {
    return null;
  }
}

/** Whether a comment's author is the token's identity (null: an installation whose login is unknown: a bot). */
export function isOwnComment(
  user: { login: string; type?: string } | null | undefined,
  identity: string | null,
): boolean {
  if (!user) return false;
  if (identity === null) return user.type === "Bot";
  const login = user.login.toLowerCase();
  const self = identity.toLowerCase();
  // GraphQL may name a bot without the `[bot]` suffix that REST shows; only apps can own such a login,
  // so appending it never lets a user's comment pass for ours.
  return login === self || login === `${self}[bot]`;
}

/** Fits a report under GitHub's limit, cutting at a line boundary and saying where the rest is. */
export function fitCommentBody(report: string, marker: string, overflowNote: string): string {
  const tail = `\n\n${marker}\n`;
  if (report.length + tail.length <= commentBodyLimit) return `${report}${tail}`;
  const note = `\n\n> ${overflowNote}`;
  const budget = commentBodyLimit - tail.length - note.length;
  const cut = report.lastIndexOf("\n", budget);
  return `${report.slice(0, cut > 0 ? cut : budget)}${note}${tail}`;
}

export interface StickyCommentRequest {
  owner: string;
  repo: string;
  issueNumber: number;
  key: string;
  /** Full comment body, marker included (see fitCommentBody). */
  body: string;
  /** resolveTokenIdentity's answer. */
  identity: string | null;
}

export interface StickyCommentResult {
  id: number;
  url: string;
  action: "created" | "updated" | "unchanged";
}

export async function upsertStickyComment(
  client: GitHubClient,
  request: StickyCommentRequest,
): Promise<StickyCommentResult> {
  const marker = commentMarker(request.key);
  // GET /repos/{owner}/{repo}/issues/{issue_number}/comments, every page:
  // https://docs.github.com/en/rest/issues/comments#list-issue-comments
  const comments = await client.paginate(client.rest.issues.listComments, {
    owner: request.owner,
    repo: request.repo,
    issue_number: request.issueNumber,
    per_page: 100,
  });
  const ours = comments.filter(
    (comment) => comment.body?.includes(marker) && isOwnComment(comment.user, request.identity),
  );
  const authors = new Set(ours.map((comment) => comment.user?.login));
  if (request.identity === null && authors.size > 1)
    throw new Error(
      `the token's login could not be learned and ${authors.size} bots (${[...authors].join(", ")}) carry this gate's marker on #${request.issueNumber}: not guessing which comment is ours`,
    );
  const existing = ours.at(-1);
  if (existing) {
    if (existing.body === request.body)
      return { id: existing.id, url: existing.html_url, action: "unchanged" };
    // PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}:
    // https://docs.github.com/en/rest/issues/comments#update-an-issue-comment
    const { data } = await client.rest.issues.updateComment({
      owner: request.owner,
      repo: request.repo,
      comment_id: existing.id,
      body: request.body,
    });
    return { id: data.id, url: data.html_url, action: "updated" };
  }
  // POST /repos/{owner}/{repo}/issues/{issue_number}/comments:
  // https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
  const { data } = await client.rest.issues.createComment({
    owner: request.owner,
    repo: request.repo,
    issue_number: request.issueNumber,
    body: request.body,
  });
  return { id: data.id, url: data.html_url, action: "created" };
}
