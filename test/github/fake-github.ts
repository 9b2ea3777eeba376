import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
// Type only: @actions/github reads GITHUB_API_URL when first imported, which tests set after importing this.
import type { GitHubCallPolicy } from "../../src/github/client.js";

/**
 * A loopback stand-in for the three services the action talks to, answering with their real shapes:
 *  - the GitHub REST API (and GraphQL's `viewer`), shapes from https://docs.github.com/en/rest (each
 *    route cites its page);
 *  - the Actions results service that @actions/artifact v6 calls for in-run uploads: Twirp JSON
 *    (`/twirp/github.actions.results.api.v1.ArtifactService/<Method>`, snake_case proto field names, see
 *    node_modules/@actions/artifact/lib/generated/results/api/v1/artifact.js);
 *  - Azure Blob storage behind the signed URLs: Put Block (`?comp=block&blockid=`) and Put Block List
 *    (`?comp=blocklist`), https://learn.microsoft.com/rest/api/storageservices/put-block-list, and a GET
 *    of the stored zip, the target of the REST download's 302.
 * Uploaded artifacts become downloadable ones: a push job's baseline is what a later PR job finds.
 */

export interface FakeUser {
  login: string;
  type: "User" | "Bot";
  /** Installation tokens (GITHUB_TOKEN, apps) are refused GET /user, as on github.com. */
  installation: boolean;
  /** A token without `actions: read`: the Actions endpoints answer 403. */
  denyActions?: boolean;
  /** GraphQL refuses this token too (then only the documented default identity is left). */
  denyGraphql?: boolean;
}

export interface FakeRun {
  id: number;
  head_sha: string;
  head_branch: string;
  event: string;
  conclusion: "success" | "failure";
  workflowFile: string;
  created_at: string;
  /** Backend id in ACTIONS_RUNTIME_TOKEN's Actions.Results scope, for runs that upload. */
  backendId?: string;
}

export interface FakeArtifact {
  id: number;
  runId: number;
  name: string;
  expired: boolean;
  zip: Buffer;
  created_at: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string; id: number; type: string };
  created_at: string;
  updated_at: string;
}

export interface FakeIssueEvent {
  id: number;
  event: string;
  actor: { login: string; id: number; type: string };
  label?: { name: string; color: string };
  created_at: string;
}

/** A commit of the fake's git data: a snapshot of every file's text (the tree, flattened). */
export interface FakeCommit {
  sha: string;
  message: string;
  parents: string[];
  files: Map<string, string>;
}

/** The blob sha git gives a file: sha1 of `blob <length>\0<content>`. */
function gitBlobSha(text: string): string {
  const content = Buffer.from(text);
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]))
    .digest("hex");
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  token: string | null;
}

/**
 * A fault the fake injects, as a proxy in front of GitHub under load would: the first `times` requests
 * matching `method` and `path` wait `delayMs`, then get `status` with `headers` and `body` instead of the
 * route's answer (no `status`: the route answers, late). `hits` counts the requests it took.
 */
export interface FaultSpec {
  method?: string;
  /** Matched against the request's path (no query). */
  path: RegExp;
  /** How many matching requests it takes (default 1; Infinity: every one). */
  times?: number;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
}

export interface Fault extends FaultSpec {
  hits: number;
}

// The answers GitHub gives under load, as its documentation shows them
// (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit,
// https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api).

/**
 * The client's policy with GitHub's seconds and the backoff unit at a millisecond and no spacing of
 * writes, so retries and rate-limit waits run in a test's time; the counts (retries, rate-limit retries,
 * the longest wait) are the defaults'.
 */
export const fastCallPolicy: GitHubCallPolicy = {
  retries: 3,
  backoffUnitMs: 1,
  attemptTimeoutMs: 5000,
  rateLimitRetries: 2,
  maxRateLimitWaitS: 60,
  secondMs: 1,
  writeSpacingMs: 0,
  notificationSpacingMs: 0,
};

/** A 502 from GitHub's front end. */
export function serverError(): Pick<FaultSpec, "status" | "body"> {
  return { status: 502, body: { message: "Server Error" } };
}

/** A secondary rate limit: 403 with `retry-after`, the budget itself not spent. */
export function secondaryRateLimit(retryAfterS: number): Pick<FaultSpec, "status" | "headers" | "body"> {
  return {
    status: 403,
    headers: {
      "retry-after": String(retryAfterS),
      "x-ratelimit-remaining": "812",
      "x-ratelimit-limit": "1000",
    },
    body: {
      message:
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.",
      documentation_url:
        "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits",
    },
  };
}

/** The primary rate limit spent: 403 with `x-ratelimit-remaining: 0` and the reset as epoch seconds. */
export function primaryRateLimit(resetAt: Date): Pick<FaultSpec, "status" | "headers" | "body"> {
  return {
    status: 403,
    headers: {
      "x-ratelimit-limit": "1000",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-used": "1000",
      "x-ratelimit-reset": String(Math.floor(resetAt.getTime() / 1000)),
      "x-ratelimit-resource": "core",
    },
    body: {
      message: "API rate limit exceeded for installation ID 4242.",
      documentation_url:
        "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-the-primary-rate-limit",
    },
  };
}

export class FakeGitHub {
  readonly owner = "acme";
  readonly repo = "serving";
  readonly users = new Map<string, FakeUser>();
  readonly runs: FakeRun[] = [];
  readonly artifacts: FakeArtifact[] = [];
  readonly comments: FakeComment[] = [];
  readonly labels = new Map<number, string[]>();
  readonly events = new Map<number, FakeIssueEvent[]>();
  /** `path@ref` -> file text, for GET contents. */
  readonly files = new Map<string, string>();
  readonly requests: RecordedRequest[] = [];
  /** Git data: branch name -> commit sha, and the commits (for the history branch store). */
  readonly branches = new Map<string, string>();
  readonly commits = new Map<string, FakeCommit>();
  /** Statuses the fake answered, in order, for the contents and git routes (`PUT contents 409`). */
  readonly gitAnswers: string[] = [];
  /**
   * When set to n, the first n GET contents requests on a branch are answered together once all n have
   * arrived: n writers that read the same version, the race two merges at once produce.
   */
  private readBarrier: { n: number; waiting: (() => void)[] } | null = null;
  /** Comment writes answer 403, like a fork PR's read-only GITHUB_TOKEN. */
  forbidCommentWrites = false;
  /** Page size the fake uses for comments, to exercise pagination with few comments. */
  commentPageSize = 100;
  /** Faults to inject (fault()), checked in order before any route answers. */
  readonly faults: Fault[] = [];

  private server: Server | null = null;
  private nextId = 1000;
  private readonly pendingUploads = new Map<
    string,
    { runId: number; name: string; blocks: Map<string, Buffer>; blob?: Buffer }
  >();
  baseUrl = "";

  id(): number {
    return this.nextId++;
  }

  /**
   * Forgets the repository's history (runs, artifacts, comments, labels, files, branches, requests) and the
   * switches, keeping the users and the listening server: a test starts from an empty repository whatever
   * the tests before it did.
   */
  reset(): void {
    for (const list of [this.runs, this.artifacts, this.comments, this.requests, this.gitAnswers])
      list.length = 0;
    for (const map of [
      this.labels,
      this.events,
      this.files,
      this.branches,
      this.commits,
      this.pendingUploads,
    ])
      map.clear();
    this.readBarrier = null;
    this.forbidCommentWrites = false;
    this.commentPageSize = 100;
    this.faults.length = 0;
  }

  /** Injects a fault; the returned handle counts the requests it took. */
  fault(spec: FaultSpec): Fault {
    const fault: Fault = { times: 1, ...spec, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  /** Requests so far to a path, by method. */
  calls(method: string, path: RegExp): number {
    return this.requests.filter((request) => request.method === method && path.test(request.path)).length;
  }

  holdContentReads(n: number): void {
    this.readBarrier = { n, waiting: [] };
  }

  /** A branch's file as its head commit holds it, or undefined. */
  branchFile(branch: string, path: string): string | undefined {
    const head = this.branches.get(branch);
    return head ? this.commits.get(head)?.files.get(path) : undefined;
  }

  /** Puts a file on a branch as a new commit (creating the branch), as a push would. */
  commitFile(branch: string, path: string, text: string, message = "test commit"): string {
    const head = this.branches.get(branch);
    const files = new Map(head ? this.commits.get(head)?.files : []);
    files.set(path, text);
    const sha = this.newCommit(message, head ? [head] : [], files);
    this.branches.set(branch, sha);
    return sha;
  }

  private newCommit(message: string, parents: string[], files: Map<string, string>): string {
    const sha = createHash("sha1")
      .update(`${this.id()}\0${message}\0${parents.join(",")}`)
      .digest("hex");
    this.commits.set(sha, { sha, message, parents, files });
    return sha;
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: String(error) }));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  commentsOn(issue: number): FakeComment[] {
    return this.comments.filter((comment) => comment.issue === issue);
  }

  private userOf(request: IncomingMessage): FakeUser | null {
    const header = request.headers.authorization ?? "";
    const token = header.replace(/^(token|bearer)\s+/i, "");
    return this.users.get(token) ?? null;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.baseUrl);
    const body = await readBody(request);
    const header = request.headers.authorization ?? "";
    this.requests.push({
      method: request.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      token: header ? header.replace(/^(token|bearer)\s+/i, "") : null,
    });
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      response.end(JSON.stringify(value));
    };
    const method = request.method ?? "GET";
    const path = url.pathname;

    const fault = this.faults.find(
      (f) => f.hits < (f.times ?? 1) && (!f.method || f.method === method) && f.path.test(path),
    );
    if (fault) {
      fault.hits++;
      // Unreferenced: a client that gave up on the answer must not keep the test process alive.
      if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs).unref());
      if (response.destroyed) return;
      if (fault.status !== undefined)
        return json(fault.status, fault.body ?? { message: "fault" }, fault.headers ?? {});
    }

    if (path.startsWith("/twirp/")) return this.twirp(path, JSON.parse(body.toString("utf8") || "{}"), json);
    if (path.startsWith("/devstoreaccount1/")) return this.blob(method, url, body, response);

    const user = this.userOf(request);
    if (!user)
      return json(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });

    // https://docs.github.com/en/rest/users/users#get-the-authenticated-user
    if (method === "GET" && path === "/user") {
      if (user.installation) {
        return json(403, {
          message: "Resource not accessible by integration",
          documentation_url: "https://docs.github.com/rest/users/users#get-the-authenticated-user",
          status: "403",
        });
      }
      return json(200, { login: user.login, id: 1, type: user.type, site_admin: false });
    }
    // https://docs.github.com/en/graphql/reference/queries#viewer
    if (method === "POST" && path === "/graphql") {
      const { query } = JSON.parse(body.toString("utf8")) as { query: string };
      if (user.denyGraphql) return json(403, { message: "Resource not accessible by integration" });
      if (/viewer\s*{\s*login/.test(query)) return json(200, { data: { viewer: { login: user.login } } });
      return json(200, { errors: [{ message: "unsupported by the fake" }] });
    }

    const repoPrefix = `/repos/${this.owner}/${this.repo}`;
    if (!path.startsWith(repoPrefix)) return json(404, { message: "Not Found" });
    const rest = path.slice(repoPrefix.length);
    let match: RegExpExecArray | null;
    if (user.denyActions && rest.startsWith("/actions/")) {
      return json(403, { message: "Resource not accessible by integration", status: "403" });
    }

    // https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
    // https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository
    match = method === "GET" ? /^\/actions(?:\/workflows\/([^/]+))?\/runs$/.exec(rest) : null;
    if (match) {
      const workflow = match[1] ? decodeURIComponent(match[1]) : null;
      if (workflow && !this.runs.some((run) => run.workflowFile === workflow)) {
        return json(404, { message: "Not Found" });
      }
      const q = url.searchParams;
      const runs = this.runs
        .filter((run) => !workflow || run.workflowFile === workflow)
        .filter((run) => !q.get("branch") || run.head_branch === q.get("branch"))
        .filter((run) => !q.get("event") || run.event === q.get("event"))
        .filter((run) => !q.get("status") || run.conclusion === q.get("status"))
        .filter((run) => !q.get("head_sha") || run.head_sha === q.get("head_sha"))
        .sort((a, b) => b.created_at.localeCompare(a.created_at));
      const { page, headers } = paginate(runs, url, Number(q.get("per_page") ?? 30));
      return json(
        200,
        { total_count: runs.length, workflow_runs: page.map((run) => this.runShape(run)) },
        headers,
      );
    }
    // https://docs.github.com/en/rest/actions/artifacts#list-artifacts-for-a-repository (newest first)
    if (method === "GET" && rest === "/actions/artifacts") {
      const name = url.searchParams.get("name");
      const artifacts = this.artifacts
        .filter((a) => !name || a.name === name)
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id);
      const { page, headers } = paginate(artifacts, url, Number(url.searchParams.get("per_page") ?? 30));
      return json(
        200,
        { total_count: artifacts.length, artifacts: page.map((a) => this.artifactShape(a)) },
        headers,
      );
    }
    // https://docs.github.com/en/rest/actions/artifacts#list-workflow-run-artifacts
    match = method === "GET" ? /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest) : null;
    if (match) {
      const runId = Number(match[1]);
      const name = url.searchParams.get("name");
      const artifacts = this.artifacts.filter((a) => a.runId === runId && (!name || a.name === name));
      const { page, headers } = paginate(artifacts, url, Number(url.searchParams.get("per_page") ?? 30));
      return json(
        200,
        { total_count: artifacts.length, artifacts: page.map((a) => this.artifactShape(a)) },
        headers,
      );
    }
    // https://docs.github.com/en/rest/actions/artifacts#download-an-artifact (302 to a signed blob URL)
    match = method === "GET" ? /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest) : null;
    if (match) {
      const artifact = this.artifacts.find((a) => a.id === Number(match?.[1]));
      if (!artifact) return json(404, { message: "Not Found" });
      if (artifact.expired) return json(410, { message: "Artifact has expired" });
      response.writeHead(302, {
        location: `${this.baseUrl}/devstoreaccount1/downloads/${artifact.id}.zip?sig=fake-signature`,
      });
      response.end();
      return;
    }
    // https://docs.github.com/en/rest/issues/comments#list-issue-comments
    match = method === "GET" ? /^\/issues\/(\d+)\/comments$/.exec(rest) : null;
    if (match) {
      const comments = this.commentsOn(Number(match[1]));
      const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 30), this.commentPageSize);
      const { page, headers } = paginate(comments, url, perPage);
      return json(
        200,
        page.map((comment) => this.commentShape(comment)),
        headers,
      );
    }
    // https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
    match = method === "POST" ? /^\/issues\/(\d+)\/comments$/.exec(rest) : null;
    if (match) {
      if (this.forbidCommentWrites)
        return json(403, { message: "Resource not accessible by integration", status: "403" });
      const now = new Date().toISOString();
      const comment: FakeComment = {
        id: this.id(),
        issue: Number(match[1]),
        body: (JSON.parse(body.toString("utf8")) as { body: string }).body,
        user: { login: user.login, id: 41898282, type: user.type },
        created_at: now,
        updated_at: now,
      };
      this.comments.push(comment);
      return json(201, this.commentShape(comment));
    }
    // https://docs.github.com/en/rest/issues/comments#update-an-issue-comment
    match = method === "PATCH" ? /^\/issues\/comments\/(\d+)$/.exec(rest) : null;
    if (match) {
      if (this.forbidCommentWrites)
        return json(403, { message: "Resource not accessible by integration", status: "403" });
      const comment = this.comments.find((c) => c.id === Number(match?.[1]));
      if (!comment) return json(404, { message: "Not Found" });
      if (comment.user.login !== user.login)
        return json(403, { message: "Must have admin rights to Repository." });
      comment.body = (JSON.parse(body.toString("utf8")) as { body: string }).body;
      comment.updated_at = new Date().toISOString();
      return json(200, this.commentShape(comment));
    }
    // https://docs.github.com/en/rest/issues/labels#list-labels-for-an-issue
    match = method === "GET" ? /^\/issues\/(\d+)\/labels$/.exec(rest) : null;
    if (match) {
      const names = this.labels.get(Number(match[1])) ?? [];
      return json(
        200,
        names.map((name, index) => ({
          id: index + 1,
          node_id: `LA_${index}`,
          url: "",
          name,
          color: "ededed",
          default: false,
          description: null,
        })),
      );
    }
    // https://docs.github.com/en/rest/issues/events#list-issue-events
    match = method === "GET" ? /^\/issues\/(\d+)\/events$/.exec(rest) : null;
    if (match) {
      const events = this.events.get(Number(match[1])) ?? [];
      const { page, headers } = paginate(events, url, Number(url.searchParams.get("per_page") ?? 30));
      return json(
        200,
        page.map((event) => ({
          ...event,
          node_id: `LE_${event.id}`,
          url: "",
          commit_id: null,
          commit_url: null,
        })),
        headers,
      );
    }
    const git = await this.gitData(method, rest, url, body, json, request.headers.accept ?? "", response);
    if (git) return;
    // https://docs.github.com/en/rest/repos/contents#get-repository-content
    match = method === "GET" ? /^\/contents\/(.+)$/.exec(rest) : null;
    if (match) {
      const filePath = decodeURIComponent(match[1] ?? "");
      const text = this.files.get(`${filePath}@${url.searchParams.get("ref")}`);
      if (text === undefined) return json(404, { message: "Not Found" });
      return json(200, {
        type: "file",
        encoding: "base64",
        size: Buffer.byteLength(text),
        name: filePath.split("/").at(-1),
        path: filePath,
        content: Buffer.from(text).toString("base64"),
        sha: createHash("sha1").update(text).digest("hex"),
      });
    }
    return json(404, { message: `Not Found (fake has no route for ${method} ${path})` });
  }

  /**
   * The contents API on branches and the git data API, as the history store uses them:
   *  - GET contents on a branch ref: https://docs.github.com/en/rest/repos/contents#get-repository-content
   *    (404 when the branch or the file is absent);
   *  - PUT contents: https://docs.github.com/en/rest/repos/contents#create-or-update-file-contents
   *    (201 created, 200 updated; 409 when `sha` is not the file's current blob sha; 422 when the file
   *    exists and no `sha` was supplied; 404 when the branch does not exist);
   *  - GET a ref: https://docs.github.com/en/rest/git/refs#get-a-reference;
   *  - POST a tree with inline `content`: https://docs.github.com/en/rest/git/trees#create-a-tree;
   *  - POST a commit: https://docs.github.com/en/rest/git/commits#create-a-commit;
   *  - POST a ref: https://docs.github.com/en/rest/git/refs#create-a-reference (422 "Reference already exists").
   * Returns false when the request is none of these (a contents GET on a ref that is not a branch goes to
   * the `files` map).
   */
  private async gitData(
    method: string,
    rest: string,
    url: URL,
    body: Buffer,
    json: (status: number, value: unknown, headers?: Record<string, string>) => void,
    accept: string,
    response: ServerResponse,
  ): Promise<boolean> {
    const answer = (label: string, status: number, value: unknown) => {
      this.gitAnswers.push(`${label} ${status}`);
      json(status, value);
      return true;
    };
    const contents = /^\/contents\/(.+)$/.exec(rest);
    if (contents && method === "GET") {
      const ref = url.searchParams.get("ref") ?? "";
      const filePath = decodeURIComponent(contents[1] ?? "");
      if (!this.branches.has(ref) && this.files.has(`${filePath}@${ref}`)) return false;
      if (this.readBarrier && this.readBarrier.n > 0) {
        const barrier = this.readBarrier;
        barrier.n--;
        await new Promise<void>((resolve) => {
          barrier.waiting.push(resolve);
          if (barrier.n === 0) {
            for (const release of barrier.waiting) release();
            this.readBarrier = null;
          }
        });
      }
      if (!this.branches.has(ref))
        return answer("GET contents", 404, { message: `No commit found for the ref ${ref}`, status: "404" });
      const text = this.branchFile(ref, filePath);
      if (text === undefined) return answer("GET contents", 404, { message: "Not Found", status: "404" });
      // The raw media type (application/vnd.github.raw, or v3.raw as Octokit spells it) serves the bytes.
      if (/vnd\.github(\.v3)?\.raw/.test(accept)) {
        this.gitAnswers.push("GET contents raw 200");
        response.writeHead(200, { "content-type": "application/vnd.github.raw; charset=utf-8" });
        response.end(text);
        return true;
      }
      // Over 1 MB the JSON form has no content: "encoding": "none" (documented on the same page).
      const large = Buffer.byteLength(text) > 1024 * 1024;
      const base64 = Buffer.from(text).toString("base64");
      return answer("GET contents", 200, {
        type: "file",
        encoding: large ? "none" : "base64",
        size: Buffer.byteLength(text),
        name: filePath.split("/").at(-1),
        path: filePath,
        // The API wraps base64 at 60 characters with newlines.
        content: large ? "" : (base64.match(/.{1,60}/g) ?? []).join("\n"),
        sha: gitBlobSha(text),
      });
    }
    if (contents && method === "PUT") {
      const filePath = decodeURIComponent(contents[1] ?? "");
      const request = JSON.parse(body.toString("utf8")) as {
        message?: string;
        content?: string;
        sha?: string;
        branch?: string;
      };
      if (!request.message || request.content === undefined)
        return answer("PUT contents", 422, { message: 'Invalid request.\n\n"message" wasn\'t supplied.' });
      const branch = request.branch ?? "main";
      if (!this.branches.has(branch))
        return answer("PUT contents", 404, { message: `Branch ${branch} not found` });
      const current = this.branchFile(branch, filePath);
      if (current !== undefined && !request.sha)
        return answer("PUT contents", 422, { message: 'Invalid request.\n\n"sha" wasn\'t supplied.' });
      if (current !== undefined && request.sha !== gitBlobSha(current))
        return answer("PUT contents", 409, { message: `${filePath} does not match ${request.sha}` });
      if (current === undefined && request.sha)
        return answer("PUT contents", 409, { message: `${filePath} does not match ${request.sha}` });
      const text = Buffer.from(request.content, "base64").toString("utf8");
      const commit = this.commitFile(branch, filePath, text, request.message);
      return answer(
        current === undefined ? "PUT contents" : "PUT contents",
        current === undefined ? 201 : 200,
        {
          content: {
            name: filePath.split("/").at(-1),
            path: filePath,
            sha: gitBlobSha(text),
            size: Buffer.byteLength(text),
            type: "file",
          },
          commit: { sha: commit, message: request.message },
        },
      );
    }
    // Octokit sends the ref percent-encoded (`heads%2Fperf-history`), which GitHub accepts.
    const getRef = method === "GET" ? /^\/git\/ref\/(.+)$/.exec(rest) : null;
    if (getRef) {
      const branch = decodeURIComponent(getRef[1] ?? "").replace(/^heads\//, "");
      const sha = this.branches.get(branch);
      if (!sha) return answer("GET ref", 404, { message: "Not Found", status: "404" });
      return answer("GET ref", 200, {
        ref: `refs/heads/${branch}`,
        node_id: `REF_${sha.slice(0, 8)}`,
        object: { type: "commit", sha },
      });
    }
    if (method === "POST" && rest === "/git/trees") {
      const request = JSON.parse(body.toString("utf8")) as {
        tree: { path: string; mode: string; type: string; content?: string }[];
      };
      const files = new Map<string, string>();
      for (const entry of request.tree) {
        if (entry.type !== "blob" || entry.content === undefined)
          return answer("POST tree", 422, { message: "Invalid tree info" });
        files.set(entry.path, entry.content);
      }
      const sha = createHash("sha1")
        .update(JSON.stringify([...files]))
        .digest("hex");
      this.trees.set(sha, files);
      return answer("POST tree", 201, {
        sha,
        truncated: false,
        tree: request.tree.map((e) => ({ path: e.path, mode: e.mode, type: e.type })),
      });
    }
    if (method === "POST" && rest === "/git/commits") {
      const request = JSON.parse(body.toString("utf8")) as {
        message: string;
        tree: string;
        parents?: string[];
      };
      const files = this.trees.get(request.tree);
      if (!files) return answer("POST commit", 422, { message: "Tree SHA does not exist" });
      const sha = this.newCommit(request.message, request.parents ?? [], new Map(files));
      return answer("POST commit", 201, {
        sha,
        message: request.message,
        tree: { sha: request.tree },
        parents: (request.parents ?? []).map((p) => ({ sha: p })),
      });
    }
    if (method === "POST" && rest === "/git/refs") {
      const request = JSON.parse(body.toString("utf8")) as { ref: string; sha: string };
      const branch = request.ref.replace(/^refs\/heads\//, "");
      if (this.branches.has(branch)) return answer("POST ref", 422, { message: "Reference already exists" });
      if (!this.commits.has(request.sha))
        return answer("POST ref", 422, { message: "Object does not exist" });
      this.branches.set(branch, request.sha);
      return answer("POST ref", 201, { ref: request.ref, object: { type: "commit", sha: request.sha } });
    }
    return false;
  }

  private readonly trees = new Map<string, Map<string, string>>();

  private runShape(run: FakeRun) {
    return {
      id: run.id,
      name: "bench",
      head_branch: run.head_branch,
      head_sha: run.head_sha,
      path: `.github/workflows/${run.workflowFile}`,
      run_number: run.id % 1000,
      event: run.event,
      status: "completed",
      conclusion: run.conclusion,
      workflow_id: 161335,
      html_url: `https://github.com/${this.owner}/${this.repo}/actions/runs/${run.id}`,
      created_at: run.created_at,
      updated_at: run.created_at,
      run_attempt: 1,
    };
  }

  private artifactShape(artifact: FakeArtifact) {
    const run = this.runs.find((candidate) => candidate.id === artifact.runId);
    return {
      id: artifact.id,
      node_id: `MDg6QXJ0aWZhY3Qx${artifact.id}`,
      name: artifact.name,
      size_in_bytes: artifact.zip.length,
      url: `${this.baseUrl}/repos/${this.owner}/${this.repo}/actions/artifacts/${artifact.id}`,
      archive_download_url: `${this.baseUrl}/repos/${this.owner}/${this.repo}/actions/artifacts/${artifact.id}/zip`,
      expired: artifact.expired,
      digest: `sha256:${createHash("sha256").update(artifact.zip).digest("hex")}`,
      created_at: artifact.created_at,
      expires_at: new Date(Date.parse(artifact.created_at) + 90 * 86_400_000).toISOString(),
      updated_at: artifact.created_at,
      workflow_run: {
        id: artifact.runId,
        repository_id: 1296269,
        head_repository_id: 1296269,
        head_branch: run?.head_branch ?? "main",
        head_sha: run?.head_sha ?? "",
      },
    };
  }

  private commentShape(comment: FakeComment) {
    return {
      id: comment.id,
      node_id: `IC_${comment.id}`,
      url: `${this.baseUrl}/repos/${this.owner}/${this.repo}/issues/comments/${comment.id}`,
      html_url: `https://github.com/${this.owner}/${this.repo}/pull/${comment.issue}#issuecomment-${comment.id}`,
      issue_url: `${this.baseUrl}/repos/${this.owner}/${this.repo}/issues/${comment.issue}`,
      body: comment.body,
      user: comment.user,
      created_at: comment.created_at,
      updated_at: comment.updated_at,
      author_association: comment.user.type === "Bot" ? "NONE" : "MEMBER",
    };
  }

  private runByBackendId(backendId: string): FakeRun {
    const run = this.runs.find((candidate) => candidate.backendId === backendId);
    if (!run) throw new Error(`no run with backend id ${backendId}`);
    return run;
  }

  private twirp(
    path: string,
    request: Record<string, unknown>,
    json: (status: number, value: unknown) => void,
  ): void {
    const method = path.split("/").at(-1);
    const runBackendId = String(request.workflow_run_backend_id ?? "");
    const run = this.runByBackendId(runBackendId);
    const name = String(request.name ?? "");
    if (method === "CreateArtifact") {
      if (this.artifacts.some((a) => a.runId === run.id && a.name === name)) {
        return void json(409, {
          code: "already_exists",
          msg: "an artifact with this name already exists on the workflow run",
        });
      }
      const key = `${run.id}/${name}`;
      this.pendingUploads.set(key, { runId: run.id, name, blocks: new Map() });
      return void json(200, {
        ok: true,
        signed_upload_url: `${this.baseUrl}/devstoreaccount1/uploads/${encodeURIComponent(key)}.zip?sv=2023-11-03&sig=fake-signature`,
      });
    }
    if (method === "FinalizeArtifact") {
      const pending = this.pendingUploads.get(`${run.id}/${name}`);
      if (!pending?.blob) return void json(404, { code: "not_found", msg: "upload not committed" });
      const artifact: FakeArtifact = {
        id: this.id(),
        runId: run.id,
        name,
        expired: false,
        zip: pending.blob,
        created_at: new Date().toISOString(),
      };
      this.artifacts.push(artifact);
      this.pendingUploads.delete(`${run.id}/${name}`);
      return void json(200, { ok: true, artifact_id: String(artifact.id) });
    }
    if (method === "ListArtifacts") {
      const nameFilter = (request.name_filter as string | undefined) ?? null;
      const idFilter = (request.id_filter as string | undefined) ?? null;
      const artifacts = this.artifacts
        .filter((a) => a.runId === run.id && !a.expired)
        .filter((a) => nameFilter === null || a.name === nameFilter)
        .filter((a) => idFilter === null || String(a.id) === String(idFilter));
      return void json(200, {
        artifacts: artifacts.map((a) => ({
          workflow_run_backend_id: runBackendId,
          workflow_job_run_backend_id: String(request.workflow_job_run_backend_id ?? ""),
          database_id: String(a.id),
          name: a.name,
          size: String(a.zip.length),
          created_at: a.created_at,
        })),
      });
    }
    if (method === "GetSignedArtifactURL") {
      const artifact = this.artifacts.find((a) => a.runId === run.id && a.name === name);
      if (!artifact) return void json(404, { code: "not_found", msg: "artifact not found" });
      return void json(200, {
        signed_url: `${this.baseUrl}/devstoreaccount1/downloads/${artifact.id}.zip?sig=fake-signature`,
      });
    }
    json(404, { code: "bad_route", msg: `no handler for ${method}` });
  }

  private blob(method: string, url: URL, body: Buffer, response: ServerResponse): void {
    const headers = {
      "x-ms-request-id": createHash("md5").update(url.href).digest("hex"),
      "x-ms-version": "2023-11-03",
      date: new Date().toUTCString(),
    };
    const download = /^\/devstoreaccount1\/downloads\/(\d+)\.zip$/.exec(url.pathname);
    if (method === "GET" && download) {
      const artifact = this.artifacts.find((a) => a.id === Number(download[1]));
      if (!artifact) {
        response.writeHead(404, headers);
        response.end();
        return;
      }
      response.writeHead(200, {
        ...headers,
        "content-type": "application/zip",
        "content-length": String(artifact.zip.length),
      });
      response.end(artifact.zip);
      return;
    }
    const upload = /^\/devstoreaccount1\/uploads\/(.+)\.zip$/.exec(url.pathname);
    const pending = upload ? this.pendingUploads.get(decodeURIComponent(upload[1] ?? "")) : undefined;
    if (method !== "PUT" || !pending) {
      response.writeHead(404, { ...headers, "x-ms-error-code": "BlobNotFound" });
      response.end();
      return;
    }
    const comp = url.searchParams.get("comp");
    const etag = `"0x${createHash("md5").update(body).digest("hex").slice(0, 16).toUpperCase()}"`;
    if (comp === "block") {
      pending.blocks.set(url.searchParams.get("blockid") ?? "", body);
      response.writeHead(201, { ...headers, "x-ms-request-server-encrypted": "true" });
      response.end();
      return;
    }
    if (comp === "blocklist") {
      const ids = [...body.toString("utf8").matchAll(/<(?:Latest|Committed|Uncommitted)>([^<]+)<\//g)].map(
        (m) => m[1] ?? "",
      );
      pending.blob = Buffer.concat(ids.map((id) => pending.blocks.get(id) ?? Buffer.alloc(0)));
    } else {
      pending.blob = body;
    }
    response.writeHead(201, {
      ...headers,
      etag,
      "last-modified": new Date().toUTCString(),
      "x-ms-request-server-encrypted": "true",
    });
    response.end();
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/** GitHub's pagination: `page`/`per_page` query and an RFC 8288 `Link` header with rel="next". */
function paginate<T>(items: T[], url: URL, perPage: number): { page: T[]; headers: Record<string, string> } {
  const size = Math.max(1, Math.min(100, perPage || 30));
  const page = Math.max(1, Number(url.searchParams.get("page") ?? 1));
  const slice = items.slice((page - 1) * size, page * size);
  const headers: Record<string, string> = {};
  if (page * size < items.length) {
    const next = new URL(url.href);
    next.searchParams.set("page", String(page + 1));
    next.searchParams.set("per_page", String(size));
    headers.link = `<${next.href}>; rel="next"`;
  }
  return { page: slice, headers };
}

/** An ACTIONS_RUNTIME_TOKEN as the runner issues it: a JWT whose `scp` names the results backend ids. */
export function runtimeToken(runBackendId: string, jobBackendId: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${encode({ alg: "RS256", typ: "JWT" })}.${encode({
    scp: `Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:${runBackendId}:${jobBackendId}`,
    exp: Math.floor(Date.now() / 1000) + 3600,
  })}.c2lnbmF0dXJl`;
}
