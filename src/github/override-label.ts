import type { GitHubClient } from "./client.js";

/**
 * The override label lets a maintainer accept a known regression. Labels can change after the event
 * that started the job, so the current labels are read from the API, and the visible note names who
 * applied the label (the newest `labeled` event for it), so the acceptance is accountable.
 */

export interface OverrideLabel {
  label: string;
  /** Login of who applied it; null when the events did not say (e.g. the label came with the PR). */
  appliedBy: string | null;
}

export async function findOverrideLabel(
  client: GitHubClient,
  target: { owner: string; repo: string; issueNumber: number; label: string },
): Promise<OverrideLabel | null> {
  // GET /repos/{owner}/{repo}/issues/{issue_number}/labels:
  // https://docs.github.com/en/rest/issues/labels#list-labels-for-an-issue
  const labels = await client.paginate(client.rest.issues.listLabelsOnIssue, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100,
  });
  if (!labels.some((label) => label.name === target.label)) return null;
  // GET /repos/{owner}/{repo}/issues/{issue_number}/events (`labeled` events carry `label` and `actor`):
  // https://docs.github.com/en/rest/issues/events#list-issue-events
  const events = await client.paginate(client.rest.issues.listEvents, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100,
  });
  const labeled = events.filter(
    (event) =>
      event.event === "labeled" && (event as { label?: { name?: string } }).label?.name === target.label,
  );
  return { label: target.label, appliedBy: labeled.at(-1)?.actor?.login ?? null };
}
