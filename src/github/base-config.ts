import type { GitHubClient } from "./client.js";

/**
 * Reads a file as it is at another commit (the PR's base), for interleaved runs: the base side must run
 * the base branch's pinned config, not the PR's.
 */
export async function readFileAtCommit(
  client: GitHubClient,
  target: { owner: string; repo: string; path: string; ref: string },
): Promise<string> {
  // GET /repos/{owner}/{repo}/contents/{path}?ref=...: https://docs.github.com/en/rest/repos/contents#get-repository-content
  const { data } = await client.rest.repos.getContent({
    owner: target.owner,
    repo: target.repo,
    path: target.path,
    ref: target.ref,
  });
  if (Array.isArray(data) || data.type !== "file" || !("content" in data)) {
    throw new Error(`${target.path} at ${target.ref} is not a file`);
  }
  if (data.encoding !== "base64") {
    throw new Error(
      `${target.path} at ${target.ref}: unexpected content encoding "${data.encoding}" (file over 1 MB?)`,
    );
  }
  return Buffer.from(data.content, "base64").toString("utf8");
}
