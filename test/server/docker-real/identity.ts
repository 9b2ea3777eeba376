import { describe, expect, it } from "vitest";
import { diffFingerprints } from "../../../src/compare/inputs/fingerprint.js";
import { providerForConfig } from "../../../src/server/provider.js";
import { noSecrets } from "../../job-outbound.js";
import { freePort } from "../docker-helpers.js";
import { docker, dockerTry, runSuite, standInConfig, useStandIn } from "./daemon.js";

const localTag = "vpg-standin/local-build:dev";
const standIn = useStandIn(() => {
  dockerTry(["image", "rm", "--force", localTag, `${localTag}-other`]);
});

async function fingerprintOf(tag: string): Promise<Record<string, unknown>> {
  const config = standInConfig(tag, { port: await freePort() });
  const provider = providerForConfig(config, {
    outbound: noSecrets,
    nvidiaSmiCommand: null,
    pollIntervalMs: 100,
  });
  const session = await provider.start({ cell: "c", logDir: standIn.dir });
  try {
    return (await session.fingerprint()) as unknown as Record<string, unknown>;
  } finally {
    await session.stop();
  }
}

describe.skipIf(!runSuite)("docker kind on a real daemon: the identity of a local image", () => {
  it("records the image ID, so one local tag on two different images is a difference", async () => {
    // Another image: the stand-in committed with one more label (a new ID, no repo digest either way).
    const [container] = docker(["create", standIn.image, "m"]).split("\n");
    docker(["commit", "--change", "LABEL variant=other", container!, `${localTag}-other`]);
    docker(["rm", container!]);
    docker(["tag", standIn.image, localTag]);
    const before = await fingerprintOf(localTag);
    docker(["tag", `${localTag}-other`, localTag]);
    const after = await fingerprintOf(localTag);
    const server = (fingerprint: Record<string, unknown>) => fingerprint.server as Record<string, unknown>;
    expect(server(before).imageDigest).toBeNull();
    expect(server(before).imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(server(after).imageId).not.toBe(server(before).imageId);
    const differences = diffFingerprints([{ cell: "c", baseline: before, candidate: after }], []);
    expect(differences.find((difference) => difference.field === "server.imageId")?.allowed).toBe(false);
  }, 60_000);
});
