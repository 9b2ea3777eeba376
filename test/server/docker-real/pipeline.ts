import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runJob } from "../../action/harness.js";
import { pullRequestEvent, pushPayload } from "../../action/payloads.js";
import { useRealActionJob } from "../../action/real-job.js";
import { freePort } from "../docker-helpers.js";
import {
  docker,
  dockerTry,
  labelledContainers,
  runSuite,
  standInConfig,
  startCli,
  useStandIn,
} from "./daemon.js";

/**
 * The docker kind through the CLI's `run` and `compare` and through the action's job, on a real daemon:
 * a local tag over two different images is a changed condition that blocks, an image bump (a new
 * reference) is compared as the thing under test, and no container is left either way.
 */

const localTag = "vpg-standin/pipeline:dev";
const bumpTag = "vpg-standin/pipeline:bump";
const otherImage = "vpg-standin/pipeline:other";
const standIn = useStandIn(() => {
  dockerTry(["image", "rm", "--force", localTag, bumpTag, otherImage]);
});
const job = useRealActionJob("docker-real-action-");

/** A second image: the stand-in committed with one more label (a new image ID, the same server). */
function makeOtherImage(): void {
  if (dockerTry(["image", "inspect", otherImage]).code === 0) return;
  const [container] = docker(["create", standIn.image, "m"]).split("\n");
  docker(["commit", "--change", "LABEL variant=other", container!, otherImage]);
  docker(["rm", container!]);
}

/** The image is the thing under test unless `imageUnderTest` is false (then a changed image blocks). */
async function configText(image: string, imageUnderTest = true): Promise<string> {
  const config = standInConfig(image, { port: await freePort() }, { size: { requests: 40 } });
  return stringify({
    ...config,
    repeats: { min: 3, max: 3, baseline: 3 },
    gate: { allowed_differences: imageUnderTest ? ["server.image"] : [] },
    client: { max_event_loop_lag_ms: 2000, max_schedule_lag_ms: 2000 },
  });
}

async function cli(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const process = startCli(args, standIn.dir);
  const code = await process.closed;
  return { code, output: process.output() };
}

async function runSide(name: string, image: string): Promise<string> {
  const configFile = join(standIn.dir, `${name}.yml`);
  writeFileSync(configFile, await configText(image));
  const out = join(standIn.dir, name);
  const result = await cli(["run", "--config", configFile, "--out", out]);
  expect(result.code, result.output).toBe(0);
  return out;
}

async function compare(baseline: string, candidate: string, name: string, imageUnderTest = true) {
  const out = join(standIn.dir, `compare-${name}`);
  const configFile = join(standIn.dir, `compare-${name}.yml`);
  writeFileSync(configFile, await configText(localTag, imageUnderTest));
  const result = await cli([
    "compare",
    "--baseline",
    baseline,
    "--candidate",
    candidate,
    "--config",
    configFile,
    "--out",
    out,
  ]);
  const verdict = JSON.parse(readFileSync(join(out, "verdict.json"), "utf8")) as {
    verdict: string;
    fingerprints: { differences: { field: string; allowed: boolean }[] };
  };
  return { ...result, verdict, report: readFileSync(join(out, "report.md"), "utf8") };
}

describe.skipIf(!runSuite)("docker kind on a real daemon: run and compare", () => {
  it("blocks one local tag moved to another image, and compares an image that is the thing under test", async () => {
    makeOtherImage();
    docker(["tag", standIn.image, localTag]);
    const base = await runSide("base", localTag);
    docker(["tag", otherImage, localTag]);
    const sameTag = await runSide("same-tag", localTag);
    docker(["tag", otherImage, bumpTag]);
    const bump = await runSide("bump", bumpTag);
    expect(labelledContainers()).toEqual([]);

    // The tag moved between the sides and the image is not declared under test: not comparable.
    const retagged = await compare(base, sameTag, "same-tag", false);
    expect(retagged.verdict.verdict, retagged.output).toBe("not-comparable");
    expect(retagged.code).not.toBe(0);
    expect(retagged.verdict.fingerprints.differences).toContainEqual(
      expect.objectContaining({ field: "server.imageId", allowed: false }),
    );
    expect(retagged.report).not.toMatch(/same recorded conditions/);
    expect(retagged.report).toMatch(/\| server\.imageId \| .* \| \*\*no\*\* \|/);

    // Declared under test (gate.allowed_differences: [server.image]): the same tag over a rebuilt image,
    // and a bump to a new reference, are both compared.
    const rebuilt = await compare(base, sameTag, "rebuilt");
    expect(rebuilt.verdict.verdict, rebuilt.report).not.toBe("not-comparable");
    expect(rebuilt.verdict.fingerprints.differences).toContainEqual(
      expect.objectContaining({ field: "server.imageId", allowed: true }),
    );
    const bumped = await compare(base, bump, "bump");
    expect(bumped.verdict.verdict, bumped.report).not.toBe("not-comparable");
    expect(bumped.verdict.fingerprints.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "server.image", allowed: true }),
        expect.objectContaining({ field: "server.imageId", allowed: true }),
      ]),
    );
    expect(bumped.report).toMatch(
      /\| server\.image \| .*pipeline:dev.* \| .*pipeline:bump.* \| yes \(under test\) \|/,
    );
  }, 180_000);
});

describe.skipIf(!runSuite)("docker kind on a real daemon: the action's job", () => {
  const { fake } = job;
  const sha = (c: string) => c.repeat(40);

  it("records main's baseline and gates a PR that bumps the image, leaving no container", async () => {
    makeOtherImage();
    docker(["tag", standIn.image, localTag]);
    docker(["tag", otherImage, bumpTag]);
    const baseline = await runJob(
      job.environment(),
      {
        runId: 900,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("a"), before: sha("9") }),
        sha: sha("a"),
        ref: "refs/heads/main",
        config: await configText(localTag),
      },
      job.dependencies(),
    );
    expect(baseline.result.verdict, baseline.result.failureMessage ?? "").not.toBe("error");
    expect(labelledContainers()).toEqual([]);

    const pr = await runJob(
      job.environment(),
      {
        runId: 901,
        ...pullRequestEvent(fake, { number: 77, baseSha: sha("a"), headSha: sha("b"), mergeSha: sha("c") }),
        config: await configText(bumpTag),
      },
      job.dependencies(),
    );
    const comment = fake.commentsOn(77).find((c) => c.user.login === "github-actions[bot]")?.body ?? "";
    expect(pr.outputs.verdict, `${pr.result.failureMessage ?? ""}\n${comment}`).not.toMatch(
      /error|not-comparable/,
    );
    // The image is the change under test: named in the comment's environment section, allowed.
    expect(comment).toMatch(/server\.image/);
    expect(comment).toMatch(/pipeline:bump/);
    expect(comment).not.toMatch(/\*\*no\*\*/);
    expect(labelledContainers()).toEqual([]);
  }, 240_000);
});
