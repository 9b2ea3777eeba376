import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitHubClient, type GitHubClient } from "../../src/github/client.js";
import { safeLogin, safeSha } from "../../src/github/escape.js";
import { findOverrideLabel } from "../../src/github/override-label.js";
import { escapeInline, inlineCode } from "../../src/report/escape.js";
import { FakeGitHub, fastCallPolicy, serverError } from "./fake-github.js";

const fake = new FakeGitHub();
let client: GitHubClient;

beforeAll(async () => {
  const baseUrl = await fake.start();
  fake.users.set("t", { login: "github-actions[bot]", type: "Bot", installation: true });
  client = createGitHubClient("t", baseUrl, { policy: fastCallPolicy });
});
afterAll(() => fake.stop());

const labeled = (id: number, login: string, name: string, event = "labeled") => ({
  id,
  event,
  actor: { login, id, type: "User" },
  label: { name, color: "ededed" },
  created_at: new Date(Date.UTC(2026, 10, 1, 0, id)).toISOString(),
});

describe("findOverrideLabel", () => {
  it("reads the label through a 502 on the labels and on the events (retried)", async () => {
    fake.labels.set(4, ["perf-regression-accepted"]);
    fake.events.set(4, [labeled(1, "maintainer-alice", "perf-regression-accepted")]);
    const faults = [
      fake.fault({ path: /\/issues\/4\/labels$/, ...serverError() }),
      fake.fault({ path: /\/issues\/4\/events$/, ...serverError() }),
    ];
    const found = await findOverrideLabel(client, {
      owner: "acme",
      repo: "serving",
      issueNumber: 4,
      label: "perf-regression-accepted",
    });
    expect(found).toEqual({ label: "perf-regression-accepted", appliedBy: "maintainer-alice" });
    expect(faults.map((f) => f.hits)).toEqual([1, 1]);
  });

  it("names who applied the label most recently, across event pages", async () => {
    fake.labels.set(1, ["bug", "perf-regression-accepted"]);
    const filler = Array.from({ length: 120 }, (_, i) => ({
      ...labeled(i + 10, "bot", "triage", "mentioned"),
    }));
    fake.events.set(1, [
      labeled(1, "eve", "perf-regression-accepted"),
      labeled(2, "eve", "perf-regression-accepted", "unlabeled"),
      ...filler,
      labeled(500, "alice", "perf-regression-accepted"),
    ]);
    const target = { owner: "acme", repo: "serving", issueNumber: 1, label: "perf-regression-accepted" };
    expect(await findOverrideLabel(client, target)).toEqual({
      label: "perf-regression-accepted",
      appliedBy: "alice",
    });
    expect(fake.requests.filter((r) => r.path.endsWith("/issues/1/events")).length).toBe(2);
  });

  it("is null when the label is no longer on the PR, whatever the payload said", async () => {
    fake.labels.set(2, ["bug"]);
    fake.events.set(2, [labeled(1, "alice", "perf-regression-accepted")]);
    expect(
      await findOverrideLabel(client, {
        owner: "acme",
        repo: "serving",
        issueNumber: 2,
        label: "perf-regression-accepted",
      }),
    ).toBeNull();
  });

  it("says it does not know who when no labeled event names it", async () => {
    fake.labels.set(3, ["perf-regression-accepted"]);
    expect(
      await findOverrideLabel(client, {
        owner: "acme",
        repo: "serving",
        issueNumber: 3,
        label: "perf-regression-accepted",
      }),
    ).toEqual({ label: "perf-regression-accepted", appliedBy: null });
  });
});

describe("escaping untrusted text", () => {
  it("neutralises markup, mentions and comment markers", () => {
    // A comment marker from outside cannot become ours: its "<" is an entity.
    expect(escapeInline("[x](http://e) @team <!-- vllm-perf-gate:v1 -->\nnext")).toBe(
      "\\[x\\](http:\u200b//e) @\u200bteam &lt;!-- vllm-perf-gate:v1 --> next",
    );
    expect(inlineCode("a`b\nc")).toBe("`a'b'c`");
    expect(safeLogin("dependabot[bot]")).toBe("dependabot[bot]");
    expect(safeLogin("<script>")).toBeNull();
    expect(safeSha("ABCDEF1")).toBe("abcdef1");
    expect(safeSha("main")).toBeNull();
  });
});
