import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGitHubClient } from "../../src/github/client.js";
import {
  commentBodyLimit,
  commentMarker,
  fitCommentBody,
  resolveTokenIdentity,
  upsertStickyComment,
} from "../../src/github/sticky-comment.js";
import { FakeGitHub } from "./fake-github.js";

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
    // Neither answers: GITHUB_TOKEN's documented identity.
    expect(await resolveTokenIdentity(createGitHubClient("ghs_locked", baseUrl))).toBe("github-actions[bot]");
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
