import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changePointKey, postChangePointComments } from "../../src/github/change-point-comment.js";
import { createGitHubClient } from "../../src/github/client.js";
import { commentMarker } from "../../src/github/sticky-comment.js";
import { FakeGitHub } from "./fake-github.js";

const fake = new FakeGitHub();
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await fake.start();
  fake.users.set("ghs_actions", { login: "github-actions[bot]", type: "Bot", installation: true });
});
afterAll(() => fake.stop());

const cp = { cell: "chat", firstAfter: { commit: "7".repeat(40) } };

describe("change points as issue comments", () => {
  it("posts one comment per change point, never a second one, and ignores a forged marker", async () => {
    const client = createGitHubClient("ghs_actions", baseUrl);
    const key = changePointKey(cp);
    expect(key).toBe("change-point.chat.777777777777");
    // Someone else's comment carrying the marker does not stop ours.
    fake.comments.push({
      id: fake.id(),
      issue: 9,
      body: `forged ${commentMarker(key)}`,
      user: { login: "mallory", id: 3, type: "User" },
      created_at: "2026-11-01T00:00:00Z",
      updated_at: "2026-11-01T00:00:00Z",
    });
    const request = {
      owner: "acme",
      repo: "serving",
      issueNumber: 9,
      items: [{ key, body: "main stepped" }],
    };
    const first = await postChangePointComments(client, request);
    expect(first.posted).toHaveLength(1);
    expect(first.alreadyPosted).toEqual([]);
    const second = await postChangePointComments(client, request);
    expect(second.posted).toEqual([]);
    expect(second.alreadyPosted).toEqual([key]);
    const ours = fake.commentsOn(9).filter((c) => c.user.login === "github-actions[bot]");
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("main stepped");
    expect(ours[0]!.body).toContain(commentMarker(key));
    // Another change point is posted beside it.
    const other = changePointKey({ ...cp, cell: "batch" });
    const third = await postChangePointComments(client, {
      ...request,
      items: [
        { key, body: "x" },
        { key: other, body: "E2E" },
      ],
    });
    expect(third.posted.map((p) => p.key)).toEqual([other]);
    expect(fake.commentsOn(9).filter((c) => c.user.login === "github-actions[bot]")).toHaveLength(2);
  });
});
