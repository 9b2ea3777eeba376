import type { GitHubClient } from "./client.js";
import { commentMarker, fitCommentBody, isOwnComment, resolveTokenIdentity } from "./sticky-comment.js";

/**
 * Change points on main as comments on one issue (input history-change-point-issue, docs/history.md):
 * one comment per cell and step (its metrics' change points listed together), never a second one. Each carries a marker with the change point's key;
 * a key already on the issue in a comment of the token's own identity is skipped (a re-run of the same
 * baseline job, or a later session that sees the same step again).
 */

export interface ChangePointCommentRequest {
  owner: string;
  repo: string;
  issueNumber: number;
  /** Per cell and step: its stable key (changePointKey) and the comment body. */
  items: readonly { key: string; body: string }[];
}

export interface ChangePointCommentResult {
  posted: { key: string; url: string }[];
  alreadyPosted: string[];
}

export async function postChangePointComments(
  client: GitHubClient,
  request: ChangePointCommentRequest,
): Promise<ChangePointCommentResult> {
  const result: ChangePointCommentResult = { posted: [], alreadyPosted: [] };
  if (request.items.length === 0) return result;
  const identity = await resolveTokenIdentity(client);
  // GET /repos/{owner}/{repo}/issues/{issue_number}/comments, every page:
  // https://docs.github.com/en/rest/issues/comments#list-issue-comments
  const comments = await client.paginate(client.rest.issues.listComments, {
    owner: request.owner,
    repo: request.repo,
    issue_number: request.issueNumber,
    per_page: 100,
  });
  const ours = comments.filter((comment) => isOwnComment(comment.user, identity));
  for (const item of request.items) {
    const marker = commentMarker(item.key);
    if (ours.some((comment) => comment.body?.includes(marker))) {
      result.alreadyPosted.push(item.key);
      continue;
    }
    // POST /repos/{owner}/{repo}/issues/{issue_number}/comments:
    // https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
    const { data } = await client.rest.issues.createComment({
      owner: request.owner,
      repo: request.repo,
      issue_number: request.issueNumber,
      body: fitCommentBody(item.body, marker, "Cut to fit GitHub's comment limit."),
    });
    result.posted.push({ key: item.key, url: data.html_url });
  }
  return result;
}

/** A step's key: the cell and the first commit after it (its metrics' change points share one comment). */
export function changePointKey(cp: { cell: string; firstAfter: { commit: string } }): string {
  return `change-point.${cp.cell}.${cp.firstAfter.commit.slice(0, 12)}`;
}
