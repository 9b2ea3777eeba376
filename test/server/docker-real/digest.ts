import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { diffFingerprints } from "../../../src/compare/inputs/fingerprint.js";
import { providerForConfig } from "../../../src/server/provider.js";
import { noSecrets } from "../../job-outbound.js";
import { freePort } from "../docker-helpers.js";
import { docker, dockerCommand, dockerTry, runSuite, standInConfig, useStandIn } from "./daemon.js";
import { type LocalRegistry, startLocalRegistry } from "./registry.js";

let registry: LocalRegistry | null = null;
const pushed: string[] = [];
const standIn = useStandIn(async () => {
  if (pushed.length > 0) dockerTry(["image", "rm", "--force", ...pushed]);
  await registry?.close();
});
beforeAll(async () => {
  registry = await startLocalRegistry();
}, 60_000);

/**
 * Pushes `source` to the local registry as `tag`, removes the local tag, returns the registry's digest.
 * Asynchronous: the registry answers from this process, so the push must not block its event loop.
 */
async function push(source: string, tag: string): Promise<{ ref: string; digest: string }> {
  const ref = `${registry!.host}/vllm-standin:${tag}`;
  docker(["tag", source, ref]);
  pushed.push(ref);
  const { stdout: out } = await promisify(execFile)(dockerCommand, ["push", ref], { timeout: 60_000 });
  const digest = /digest: (sha256:[0-9a-f]{64})/.exec(out)?.[1];
  if (!digest) throw new Error(`docker push ${ref} printed no digest:\n${out}`);
  docker(["image", "rm", ref]);
  return { ref, digest };
}

async function fingerprintOf(ref: string): Promise<Record<string, unknown>> {
  const config = standInConfig(ref, { port: await freePort() });
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

describe.skipIf(!runSuite)("docker kind on a real daemon: an image pulled from a registry", () => {
  it("records the registry digest after the pull, and two digests are a changed condition", async () => {
    // Two images made from the stand-in (one label each), so the stand-in itself keeps no repo digest.
    const variant = async (label: string, tag: string) => {
      const [container] = docker(["create", standIn.image, "m"]).split("\n");
      const local = `${registry!.host}/vllm-standin-build:${tag}`;
      docker(["commit", "--change", `LABEL variant=${label}`, container!, local]);
      docker(["rm", container!]);
      pushed.push(local);
      return push(local, tag);
    };
    const first = await variant("first", "x");
    const second = await variant("second", "y");
    expect(second.digest).not.toBe(first.digest);
    expect(dockerTry(["image", "inspect", first.ref]).code).not.toBe(0);

    const before = await fingerprintOf(first.ref);
    const after = await fingerprintOf(second.ref);
    const server = (fingerprint: Record<string, unknown>) => fingerprint.server as Record<string, unknown>;
    expect(server(before).imageDigest).toBe(`${registry!.host}/vllm-standin@${first.digest}`);
    expect(server(after).imageDigest).toBe(`${registry!.host}/vllm-standin@${second.digest}`);
    expect(server(before).imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    const differences = diffFingerprints([{ cell: "c", baseline: before, candidate: after }], []);
    const digestChange = differences.find((difference) => difference.field === "server.imageDigest");
    expect(digestChange).toBeDefined();
    expect(digestChange?.allowed).toBe(false);
  }, 90_000);
});
