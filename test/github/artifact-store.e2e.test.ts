import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArtifactStore } from "../../src/github/artifact-store.js";
import { FakeGitHub, fastCallPolicy, runtimeToken, serverError } from "./fake-github.js";

const fake = new FakeGitHub();
let dir: string;
let storeModule: typeof import("../../src/github/artifact-store.js");

beforeAll(async () => {
  const baseUrl = await fake.start();
  // @actions/github reads GITHUB_API_URL when it is first imported, so the adapter is imported after.
  process.env.GITHUB_API_URL = baseUrl;
  process.env.ACTIONS_RESULTS_URL = `${baseUrl}/`;
  process.env.ACTIONS_RUNTIME_TOKEN = runtimeToken("run-backend-7", "job-backend-1");
  delete process.env.GITHUB_SERVER_URL;
  fake.users.set("ghs_installation", { login: "github-actions[bot]", type: "Bot", installation: true });
  fake.runs.push({
    id: 7,
    head_sha: "a".repeat(40),
    head_branch: "main",
    event: "push",
    conclusion: "success",
    workflowFile: "bench.yml",
    created_at: "2026-11-01T00:00:00Z",
    backendId: "run-backend-7",
  });
  storeModule = await import("../../src/github/artifact-store.js");
  dir = await mkdtemp(join(tmpdir(), "artifact-store-"));
});

afterAll(async () => {
  await fake.stop();
  await rm(dir, { recursive: true, force: true });
});

async function sampleTree(root: string): Promise<void> {
  await mkdir(join(root, "chat", "run-0"), { recursive: true });
  await writeFile(join(root, "chat", "run-0", "run.json"), '{"hello":"world"}\n');
  await writeFile(join(root, "report.md"), "# report\n");
}

async function roundTrip(store: ArtifactStore, name: string, source: string, target: string, runId?: number) {
  const uploaded = await store.upload(name, source, { retentionDays: 3 });
  expect(uploaded).not.toBeNull();
  const listed = await store.listCurrentRun();
  const ref = listed.find((artifact) => artifact.name === name);
  expect(ref).toBeDefined();
  await store.download({ ...(ref ?? { id: 0, name, sizeBytes: 0 }), ...(runId ? { runId } : {}) }, target);
  expect(await readFile(join(target, "chat", "run-0", "run.json"), "utf8")).toBe('{"hello":"world"}\n');
  expect(await readFile(join(target, "report.md"), "utf8")).toBe("# report\n");
}

describe("GitHubArtifactStore against the loopback results service, blob storage and REST API", () => {
  it("uploads through Twirp + Put Block List and downloads in-run", async () => {
    const source = join(dir, "src-1");
    await sampleTree(source);
    const store = new storeModule.GitHubArtifactStore({
      token: "ghs_installation",
      owner: fake.owner,
      repo: fake.repo,
    });
    await roundTrip(store, "evidence", source, join(dir, "out-1"));
    const stored = fake.artifacts.find((artifact) => artifact.name === "evidence");
    // A real zip: local file header signature.
    expect(stored?.zip.subarray(0, 4).toString("hex")).toBe("504b0304");
  });

  it("downloads another run's artifact through the REST API's 302 (findBy)", async () => {
    const source = join(dir, "src-2");
    await sampleTree(source);
    const store = new storeModule.GitHubArtifactStore({
      token: "ghs_installation",
      owner: fake.owner,
      repo: fake.repo,
    });
    await roundTrip(store, "baseline", source, join(dir, "out-2"), 7);
    const zipRequest = fake.requests.find((request) => /\/actions\/artifacts\/\d+\/zip$/.test(request.path));
    expect(zipRequest?.token).toBe("ghs_installation");
  });

  describe("another run's artifact under faults", () => {
    const zipCall = /\/actions\/artifacts\/\d+\/zip$/;
    const blob = /^\/devstoreaccount1\/downloads\//;
    let ref: { id: number; name: string; sizeBytes: number; runId: number };
    const store = () =>
      new storeModule.GitHubArtifactStore({
        token: "ghs_installation",
        owner: fake.owner,
        repo: fake.repo,
        apiUrl: fake.baseUrl,
        policy: fastCallPolicy,
      });

    beforeAll(async () => {
      const source = join(dir, "src-faults");
      await sampleTree(source);
      const uploaded = await store().upload("faulted", source);
      ref = { id: uploaded?.id ?? 0, name: "faulted", sizeBytes: uploaded?.sizeBytes ?? 0, runId: 7 };
    });

    for (const [what, path, fault] of [
      ["a 502 from the API", zipCall, serverError()],
      ["a 503 from blob storage", blob, { status: 503, body: "ServerBusy" }],
      ["blob storage that does not answer within the deadline", blob, { delayMs: 10_000 }],
    ] as const) {
      it(`retries ${what}`, async () => {
        fake.faults.length = 0;
        const injected = fake.fault({ path, ...fault });
        const target = join(dir, `out-fault-${what.length}`);
        const policy = { ...fastCallPolicy, attemptTimeoutMs: 1500 };
        await new storeModule.GitHubArtifactStore({
          token: "ghs_installation",
          owner: fake.owner,
          repo: fake.repo,
          apiUrl: fake.baseUrl,
          policy,
        }).download(ref, target);
        expect(injected.hits).toBe(1);
        expect(await readFile(join(target, "report.md"), "utf8")).toBe("# report\n");
      });
    }

    it("names the step, the call and the status when the API keeps failing", async () => {
      fake.faults.length = 0;
      fake.fault({ path: zipCall, times: Number.POSITIVE_INFINITY, ...serverError() });
      await expect(store().download(ref, join(dir, "out-fault-api"))).rejects.toThrow(
        new RegExp(
          `^downloading artifact faulted \\(${ref.id}\\) of run 7: GET /repos/acme/serving/actions/artifacts/${ref.id}/zip answered HTTP 502 \\(Server Error\\) after 4 attempts$`,
        ),
      );
      fake.faults.length = 0;
    });

    it("says how often blob storage failed, never the signed URL", async () => {
      fake.faults.length = 0;
      fake.fault({ path: blob, times: Number.POSITIVE_INFINITY, status: 503, body: "ServerBusy" });
      const error = (await store()
        .download(ref, join(dir, "out-fault-blob"))
        .then(
          () => new Error("downloaded"),
          (e: unknown) => e,
        )) as Error;
      expect(error.message).toMatch(
        /^downloading artifact faulted \(\d+\) of run 7: the download from blob storage failed after 4 attempts \(127\.0\.0\.1:\d+ answered HTTP 503\)$/,
      );
      expect(error.message).not.toContain("sig=");
      fake.faults.length = 0;
    });

    it("stops a download past the size limit while it downloads", async () => {
      fake.faults.length = 0;
      const limits = {
        ...(await import("../../src/github/baseline-bundle.js")).defaultBaselineLimits,
        maxTotalBytes: 100,
      };
      await expect(
        store().download({ ...ref, sizeBytes: 50 }, join(dir, "out-fault-size"), limits),
      ).rejects.toThrow(/more than the 100 bytes allowed \(limit maxTotalBytes\)/);
    });
  });

  it("skips symlinks and reports nothing to upload for an empty directory", async () => {
    const source = join(dir, "src-3");
    await sampleTree(source);
    await symlink("/etc/passwd", join(source, "escape"));
    const files = await storeModule.listFilesRecursively(source);
    expect(files.map((file) => file.slice(source.length + 1))).toEqual(["chat/run-0/run.json", "report.md"]);
    await mkdir(join(dir, "empty"));
    const store = new storeModule.GitHubArtifactStore({ token: "t", owner: fake.owner, repo: fake.repo });
    expect(await store.upload("nothing", join(dir, "empty"))).toBeNull();
  });

  it("LocalArtifactStore keeps one immutable artifact per name per run", async () => {
    const root = join(dir, "local");
    const source = join(dir, "src-4");
    await sampleTree(source);
    const runA = new storeModule.LocalArtifactStore(root, 1);
    await roundTrip(runA, "baseline", source, join(dir, "out-4"));
    await expect(runA.upload("baseline", source)).rejects.toThrow(/already exists in run 1/);
    const runB = new storeModule.LocalArtifactStore(root, 2);
    expect(await runB.listCurrentRun()).toEqual([]);
    const [fromA] = await runA.listCurrentRun();
    await runB.download(fromA ?? { id: -1, name: "", sizeBytes: 0 }, join(dir, "out-5"));
    expect(await readFile(join(dir, "out-5", "report.md"), "utf8")).toBe("# report\n");
  });
});
