import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeCallFailure } from "../../src/github/api-failure.js";
import { createGitHubClient } from "../../src/github/client.js";
import {
  commentBodyLimit,
  commentMarker,
  fitCommentBody,
  resolveTokenIdentity,
  upsertStickyComment,
} from "../../src/github/sticky-comment.js";
import {
  FakeGitHub,
  fastCallPolicy,
  primaryRateLimit,
  secondaryRateLimit,
  serverError,
} from "./fake-github.js";

const fake = new FakeGitHub();
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await fake.start();
  fake.users.set("ghs_actions", { login: "github-actions[bot]", type: "Bot", installation: true });
  fake.users.set("ghs_app", { login: "perf-bot[bot]", type: "Bot", installation: true });
  fake.users.set("ghp_alice", { login: "alice", type: "User", installation: false });
  fake.users.set("ghs_locked", {
    login: "github-actions[bot]",
    type: "Bot",
    installation: true,
    denyGraphql: true,
  });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.comments.length = 0;
  fake.commentPageSize = 100;
  fake.faults.length = 0;
});

const fast = (token: string) => createGitHubClient(token, baseUrl, { policy: fastCallPolicy });

/** The comment of gate `perf.yml` on the fake repository's pull request #5. */
const upsert = (client: ReturnType<typeof fast>, body: string, identity: string | null) =>
  upsertStickyComment(client, {
    owner: "acme",
    repo: "serving",
    issueNumber: 5,
    key: "perf.yml",
    body,
    identity,
  });

const marker = commentMarker("perf.yml");

function seed(login: string, body: string, type = "User") {
  fake.comments.push({
    id: fake.id(),
    issue: 5,
    body,
    user: { login, id: 9, type },
    created_at: "2026-11-01T00:00:00Z",
    updated_at: "2026-11-01T00:00:00Z",
  });
}

describe("sticky comment", () => {
  it("resolves identity: GET /user for PATs, GraphQL viewer for installation tokens", async () => {
    expect(await resolveTokenIdentity(createGitHubClient("ghp_alice", baseUrl))).toBe("alice");
    expect(await resolveTokenIdentity(createGitHubClient("ghs_app", baseUrl))).toBe("perf-bot[bot]");
    expect(fake.requests.some((r) => r.path === "/graphql" && r.token === "ghs_app")).toBe(true);
    // Neither answers: no login is guessed (the comment is then found by its marker and a bot author).
    expect(await resolveTokenIdentity(createGitHubClient("ghs_locked", baseUrl))).toBeNull();
  });

  it("a GraphQL viewer 502 is retried: the identity is the token's, not a guess", async () => {
    fake.fault({ path: /^\/graphql$/, ...serverError() });
    expect(await resolveTokenIdentity(fast("ghs_app"))).toBe("perf-bot[bot]");
  });

  it("a rate-limited GET /user is no answer, never taken for an installation token's refusal", async () => {
    fake.fault({
      path: /^\/user$/,
      times: Number.POSITIVE_INFINITY,
      ...primaryRateLimit(new Date(Date.now() + 3_600_000)),
    });
    await expect(resolveTokenIdentity(fast("ghp_alice"))).rejects.toThrow(
      /^finding the token's identity: GET \/user was refused: its API rate limit is spent/,
    );
  });

  it("with the App's login unknown (GraphQL failing after its retries), updates the bot's marked comment: never a second one", async () => {
    fake.fault({ path: /^\/graphql$/, times: Number.POSITIVE_INFINITY, ...serverError() });
    seed("mallory", `forged ${marker}`);
    seed("perf-bot[bot]", `stale verdict ${marker}`, "Bot");
    const client = fast("ghs_app");
    const identity = await resolveTokenIdentity(client);
    expect(identity).toBeNull();
    const result = await upsert(client, `fresh verdict ${marker}`, identity);
    expect(result.action).toBe("updated");
    const marked = fake.commentsOn(5).filter((c) => c.body.includes(marker));
    expect(marked.map((c) => [c.user.login, c.body.split(" ")[0]])).toEqual([
      ["mallory", "forged"],
      ["perf-bot[bot]", "fresh"],
    ]);
  });

  it("with the login unknown and two bots carrying the marker, writes nothing rather than guess", async () => {
    seed("perf-bot[bot]", `ours? ${marker}`, "Bot");
    seed("other-app[bot]", `theirs? ${marker}`, "Bot");
    await expect(upsert(fast("ghs_app"), `new ${marker}`, null)).rejects.toThrow(
      /2 bots \(perf-bot\[bot\], other-app\[bot\]\) carry this gate's marker on #5: not guessing/,
    );
    expect(fake.commentsOn(5)).toHaveLength(2);
  });

  for (const [name, fault] of [
    ["a 502", serverError()],
    ["a secondary rate limit (retry-after: 1)", secondaryRateLimit(1)],
  ] as const) {
    it(`${name} on the comment write is retried: the comment is written once`, async () => {
      const write = fake.fault({ method: "POST", path: /\/issues\/5\/comments$/, ...fault });
      const result = await upsert(fast("ghs_actions"), `v1 ${marker}`, "github-actions[bot]");
      expect(write.hits).toBe(1);
      expect(result.action).toBe("created");
      expect(fake.commentsOn(5)).toHaveLength(1);
    });
  }

  it("a comment write refused by a spent rate limit says so, never that the token may not write", async () => {
    fake.fault({
      method: "POST",
      path: /\/issues\/5\/comments$/,
      times: Number.POSITIVE_INFINITY,
      ...primaryRateLimit(new Date(Date.now() + 3_600_000)),
    });
    const error = await upsert(fast("ghs_actions"), `v1 ${marker}`, "github-actions[bot]").catch(
      (e: unknown) => e,
    );
    expect(describeCallFailure(error)).toMatch(
      /^POST \/repos\/acme\/serving\/issues\/5\/comments was refused: its API rate limit is spent \(HTTP 403; it resets at .* UTC\), not a missing permission$/,
    );
  });

  it("finds its comment among 150 on two pages", async () => {
    for (let i = 0; i < 150; i++) seed(`user${i}`, `comment ${i}`);
    fake.comments.splice(120, 0, {
      id: fake.id(),
      issue: 5,
      body: `old ${marker}`,
      user: { login: "github-actions[bot]", id: 41898282, type: "Bot" },
      created_at: "2026-11-01T00:00:00Z",
      updated_at: "2026-11-01T00:00:00Z",
    });
    const result = await upsert(fast("ghs_actions"), `new ${marker}`, "github-actions[bot]");
    expect(result.action).toBe("updated");
    expect(fake.commentsOn(5).filter((c) => c.body.includes(marker))).toHaveLength(1);
  });

  it("marker is versioned and keyed, and cannot be broken by the key", () => {
    expect(marker).toBe("<!-- vllm-perf-gate:v1 key=perf.yml -->");
    expect(commentMarker("a b-->c")).toBe("<!-- vllm-perf-gate:v1 key=a_b--_c -->");
  });

  it("creates once, then updates its own comment found on a later page, ignoring forged markers", async () => {
    const client = createGitHubClient("ghs_actions", baseUrl);
    fake.commentPageSize = 2;
    seed("mallory", `fake verdict ${marker}`);
    seed("bob", "LGTM");
    const first = await upsertStickyComment(client, {
      owner: "acme",
      repo: "serving",
      issueNumber: 5,
      key: "perf.yml",
      body: `v1\n${marker}`,
      identity: "github-actions[bot]",
    });
    expect(first.action).toBe("created");
    seed("carol", "another one");
    seed("dave", "and another");
    const second = await upsertStickyComment(client, {
      owner: "acme",
      repo: "serving",
      issueNumber: 5,
      key: "perf.yml",
      body: `v2\n${marker}`,
      identity: "github-actions[bot]",
    });
    expect(second).toMatchObject({ id: first.id, action: "updated" });
    expect(fake.commentsOn(5).find((c) => c.user.login === "mallory")?.body).toBe(`fake verdict ${marker}`);
    expect(fake.commentsOn(5).filter((c) => c.body.includes(marker))).toHaveLength(2);
    const third = await upsertStickyComment(client, {
      owner: "acme",
      repo: "serving",
      issueNumber: 5,
      key: "perf.yml",
      body: `v2\n${marker}`,
      identity: "github-actions[bot]",
    });
    expect(third.action).toBe("unchanged");
  });

  it("accepts a GraphQL bot login without the [bot] suffix, never a user's comment", async () => {
    const client = createGitHubClient("ghs_app", baseUrl);
    seed("perf-bot", `user squatting the name ${marker}`);
    seed("perf-bot[bot]", `ours ${marker}`, "Bot");
    const result = await upsertStickyComment(client, {
      owner: "acme",
      repo: "serving",
      issueNumber: 5,
      key: "perf.yml",
      body: `new ${marker}`,
      identity: "perf-bot",
    });
    expect(result.action).toBe("updated");
    expect(fake.commentsOn(5).find((c) => c.user.login === "perf-bot")?.body).toContain("user squatting");
  });

  it("fits an over-long report under GitHub's limit, keeping the marker", () => {
    const report = Array.from({ length: 5000 }, (_, i) => `| row ${i} | ${"x".repeat(20)} |`).join("\n");
    const body = fitCommentBody(report, marker, "cut; see the job summary");
    expect(body.length).toBeLessThanOrEqual(commentBodyLimit);
    expect(body.trimEnd().endsWith(marker)).toBe(true);
    expect(body).toContain("> cut; see the job summary");
    expect(fitCommentBody("short", marker, "n")).toBe(`short\n\n${marker}\n`);
  });
});
