import { getOctokit } from "@actions/github";

/** The REST + GraphQL client the GitHub adapters use; one type so every adapter can be handed a test one. */
export type GitHubClient = ReturnType<typeof getOctokit>;

/**
 * `baseUrl` is passed explicitly because `@actions/github` computes its default from GITHUB_API_URL
 * once, at import; the caller's value (from the context) is the one that must win.
 */
export function createGitHubClient(token: string, apiUrl: string): GitHubClient {
  return getOctokit(token, { baseUrl: apiUrl.replace(/\/+$/, "") });
}

/** HTTP status of an Octokit RequestError, or undefined for anything else (network errors, bugs). */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "status" in error) {
    const status = (error as { status: unknown }).status;
    return typeof status === "number" ? status : undefined;
  }
  return undefined;
}
