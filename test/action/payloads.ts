/**
 * Event payloads with the real webhook shapes, trimmed to a representative subset of fields:
 * https://docs.github.com/en/webhooks/webhook-events-and-payloads#push, #pull_request and
 * #workflow_dispatch.
 */

const repository = (fullName: string, fork: boolean) => {
  const [owner, name] = fullName.split("/");
  return {
    id: fork ? 7_000_001 : 1_296_269,
    node_id: "R_kgDOAAAAAQ",
    name,
    full_name: fullName,
    private: false,
    owner: { login: owner, id: 1, type: "Organization" },
    html_url: `https://github.com/${fullName}`,
    fork,
    default_branch: "main",
    visibility: "public",
  };
};

export function pushPayload(options: { owner: string; repo: string; sha: string; before: string }) {
  const full = `${options.owner}/${options.repo}`;
  return {
    ref: "refs/heads/main",
    before: options.before,
    after: options.sha,
    created: false,
    deleted: false,
    forced: false,
    base_ref: null,
    compare: `https://github.com/${full}/compare/${options.before.slice(0, 12)}...${options.sha.slice(0, 12)}`,
    commits: [],
    head_commit: {
      id: options.sha,
      tree_id: "f".repeat(40),
      message: "Pin vLLM image",
      timestamp: "2026-11-01T10:00:00Z",
      author: { name: "Alice", email: "alice@example.com", username: "alice" },
    },
    repository: { ...repository(full, false), master_branch: "main" },
    pusher: { name: "alice", email: "alice@example.com" },
    sender: { login: "alice", id: 2, type: "User" },
  };
}

export function workflowDispatchPayload(options: { owner: string; repo: string }) {
  const full = `${options.owner}/${options.repo}`;
  return {
    inputs: {},
    ref: "refs/heads/main",
    repository: repository(full, false),
    sender: { login: "alice", id: 2, type: "User" },
    workflow: ".github/workflows/bench.yml",
  };
}

export function pullRequestPayload(options: {
  owner: string;
  repo: string;
  number: number;
  baseSha: string;
  headSha: string;
  headRepo?: string;
  labels?: string[];
}) {
  const full = `${options.owner}/${options.repo}`;
  const headRepo = options.headRepo ?? full;
  const fork = headRepo !== full;
  return {
    action: "synchronize",
    number: options.number,
    before: "e".repeat(40),
    after: options.headSha,
    pull_request: {
      url: `https://api.github.com/repos/${full}/pulls/${options.number}`,
      id: 1_000_000 + options.number,
      node_id: "PR_kwDOAAAAAc4AAAAB",
      html_url: `https://github.com/${full}/pull/${options.number}`,
      number: options.number,
      state: "open",
      locked: false,
      title: "Use FP8 KV cache",
      user: { login: fork ? "outsider" : "bob", id: 3, type: "User" },
      body: null,
      labels: (options.labels ?? []).map((name, index) => ({
        id: index + 1,
        name,
        color: "ededed",
        default: false,
      })),
      draft: false,
      head: {
        label: `${headRepo.split("/")[0]}:fp8-kv`,
        ref: "fp8-kv",
        sha: options.headSha,
        user: { login: headRepo.split("/")[0], id: 3, type: "User" },
        repo: repository(headRepo, fork),
      },
      base: {
        label: `${options.owner}:main`,
        ref: "main",
        sha: options.baseSha,
        user: { login: options.owner, id: 1, type: "Organization" },
        repo: repository(full, false),
      },
      author_association: fork ? "FIRST_TIME_CONTRIBUTOR" : "MEMBER",
      merged: false,
      mergeable: null,
    },
    repository: repository(full, false),
    sender: { login: fork ? "outsider" : "bob", id: 3, type: "User" },
  };
}

/**
 * The event part of a pull_request job on PR `number` of the fake's repository: the payload (head
 * `headSha` against `baseSha`), the merge commit the job checks out and its ref, refs/pull/<number>/merge.
 */
export function pullRequestEvent(
  repository: { owner: string; repo: string },
  options: { number: number; baseSha: string; headSha: string; mergeSha: string },
) {
  return {
    event: "pull_request" as const,
    payload: pullRequestPayload({
      owner: repository.owner,
      repo: repository.repo,
      number: options.number,
      baseSha: options.baseSha,
      headSha: options.headSha,
    }),
    sha: options.mergeSha,
    ref: `refs/pull/${options.number}/merge`,
  };
}
