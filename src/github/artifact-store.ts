import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { DefaultArtifactClient } from "@actions/artifact";
import { z } from "zod";
import { DownloadTooLargeError, downloadRunArtifact } from "./artifact-download.js";
import { type BaselineLimits, defaultBaselineLimits, UntrustedBaselineError } from "./baseline-bundle.js";
import {
  createGitHubClient,
  defaultGitHubCallPolicy,
  type GitHubCallPolicy,
  type GitHubClient,
} from "./client.js";
import { copyTreeWithLimits, listFilesRecursively } from "./files.js";
import { ArchiveLimitError, extractZip } from "./zip-extract.js";

export { listFilesRecursively };

/**
 * Where evidence and baselines are kept between jobs. The action talks to this interface only; the
 * GitHub implementation wraps `@actions/artifact`, the local one keeps a directory per run (tests, and
 * trying the action outside GitHub).
 */

export interface ArtifactRef {
  id: number;
  name: string;
  sizeBytes: number;
  /** The workflow run that owns it; undefined for the current run. */
  runId?: number;
}

export interface ArtifactStore {
  /** Uploads every regular file under rootDir; null when there is nothing to upload. */
  upload(name: string, rootDir: string, options?: { retentionDays?: number }): Promise<ArtifactRef | null>;
  /** Artifacts already uploaded by other jobs of the current workflow run. */
  listCurrentRun(): Promise<ArtifactRef[]>;
  /**
   * Extracts the artifact's files into destination with the limits enforced while writing (bytes,
   * entries, compression ratio, names, no links): on a breach it removes what it wrote and throws an
   * UntrustedBaselineError naming the limit. Every artifact is untrusted input.
   */
  download(artifact: ArtifactRef, destination: string, limits?: BaselineLimits): Promise<void>;
}

export interface GitHubArtifactStoreOptions {
  /** Token with `actions: read`, used to download artifacts of other workflow runs. */
  token: string;
  owner: string;
  repo: string;
  /** The REST API (the context's GITHUB_API_URL) that hands out other runs' artifacts. */
  apiUrl?: string;
  /** Retries and deadlines of those downloads (client.ts); tests shorten the waits. */
  policy?: GitHubCallPolicy;
  /** The job log, told about retries. */
  log?: (line: string) => void;
}

/**
 * In-run uploads, listings and downloads go through `@actions/artifact` (the runner's own credentials,
 * its own retries); another run's artifact is downloaded here (artifact-download.ts), retried on the
 * GitHub client's policy and stopped at the size limit while it downloads.
 */
export class GitHubArtifactStore implements ArtifactStore {
  private readonly client = new DefaultArtifactClient();
  private rest: GitHubClient | null = null;

  constructor(private readonly options: GitHubArtifactStoreOptions) {}

  private api(): GitHubClient {
    const { token, apiUrl, policy, log } = this.options;
    this.rest ??= createGitHubClient(
      token,
      apiUrl ?? process.env.GITHUB_API_URL ?? "https://api.github.com",
      {
        ...(policy ? { policy } : {}),
        ...(log ? { log } : {}),
      },
    );
    return this.rest;
  }

  async upload(
    name: string,
    rootDir: string,
    options: { retentionDays?: number } = {},
  ): Promise<ArtifactRef | null> {
    const files = await listFilesRecursively(rootDir);
    if (files.length === 0) return null;
    const response = await this.client.uploadArtifact(name, files, rootDir, {
      ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
    });
    return { id: response.id ?? 0, name, sizeBytes: response.size ?? 0 };
  }

  async listCurrentRun(): Promise<ArtifactRef[]> {
    const { artifacts } = await this.client.listArtifacts({ latest: true });
    return artifacts.map((artifact) => ({ id: artifact.id, name: artifact.name, sizeBytes: artifact.size }));
  }

  async download(
    artifact: ArtifactRef,
    destination: string,
    limits: BaselineLimits = defaultBaselineLimits,
  ): Promise<void> {
    const label = `artifact ${artifact.name} (${artifact.id})`;
    // The compressed download is bounded by the size GitHub reports; what it expands to is bounded
    // by extracting it ourselves (@actions/artifact's own extraction checks no limit).
    if (artifact.sizeBytes > limits.maxTotalBytes) {
      throw new UntrustedBaselineError(
        `${label}: ${artifact.sizeBytes} bytes compressed, more than the ${limits.maxTotalBytes} allowed (limit maxTotalBytes)`,
      );
    }
    await mkdir(dirname(destination), { recursive: true });
    const staging = await mkdtemp(join(dirname(destination), ".artifact-download-"));
    try {
      const archive = join(staging, "artifact.zip");
      if (artifact.runId === undefined) {
        await this.client.downloadArtifact(artifact.id, { path: staging, skipDecompress: true });
        const saved = await readdir(staging);
        if (saved.length !== 1 || saved[0] === undefined)
          throw new Error(`${label}: expected one archive from the download, found ${saved.length} files`);
        await extractArtifactZip(label, join(staging, saved[0]), destination, limits);
        return;
      }
      const download = {
        owner: this.options.owner,
        repo: this.options.repo,
        artifactId: artifact.id,
        label: `${label} of run ${artifact.runId}`,
        maxBytes: limits.maxTotalBytes,
      };
      await downloadRunArtifact(
        this.api(),
        download,
        archive,
        this.options.policy ?? defaultGitHubCallPolicy,
      ).catch((error: unknown) => {
        if (error instanceof DownloadTooLargeError)
          throw new UntrustedBaselineError(`${label}: ${error.message} (nothing of it was kept)`);
        throw error;
      });
      await extractArtifactZip(label, archive, destination, limits);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
}

/** Extracts one downloaded artifact archive; limit breaches become UntrustedBaselineErrors. */
export async function extractArtifactZip(
  label: string,
  archive: string,
  destination: string,
  limits: BaselineLimits = defaultBaselineLimits,
): Promise<void> {
  const archiveBytes = (await lstat(archive)).size;
  if (archiveBytes > limits.maxTotalBytes) {
    throw new UntrustedBaselineError(
      `${label}: ${archiveBytes} bytes compressed, more than the ${limits.maxTotalBytes} allowed (limit maxTotalBytes)`,
    );
  }
  try {
    await extractZip(archive, destination, limits);
  } catch (error) {
    if (error instanceof ArchiveLimitError) throw new UntrustedBaselineError(refusalMessage(label, error));
    throw error;
  }
}

/** Says how far extraction got before the breach, so a reader can see the limit held. */
function refusalMessage(label: string, error: ArchiveLimitError): string {
  const written = error.bytesWritten > 0 ? `stopped after writing ${error.bytesWritten} bytes; ` : "";
  return `${label}: ${error.message} (${written}nothing of it was kept)`;
}

const localArtifactMeta = z.object({
  schemaVersion: z.literal(1),
  id: z.number().int().positive(),
  name: z.string(),
  runId: z.number().int(),
  sizeBytes: z.number().int().nonnegative(),
});

/**
 * Artifacts as directories: `<root>/<runId>/<name>/files/...` plus `artifact.json`. Ids are unique
 * within the root, like GitHub's, so the same ArtifactRef can be handed between runs. An artifact
 * may instead hold `<name>/artifact.zip`, the archive GitHub would hand out; either way a download
 * applies the same limits as GitHubArtifactStore's.
 */
export class LocalArtifactStore implements ArtifactStore {
  constructor(
    private readonly root: string,
    private readonly currentRunId: number,
  ) {}

  private async all(): Promise<Array<z.output<typeof localArtifactMeta>>> {
    const metas: Array<z.output<typeof localArtifactMeta>> = [];
    for (const file of await listFilesRecursively(this.root)) {
      if (relative(this.root, file).split(/[\\/]/).length !== 3 || !file.endsWith("artifact.json")) continue;
      metas.push(localArtifactMeta.parse(JSON.parse(await readFile(file, "utf8"))));
    }
    return metas;
  }

  async upload(
    name: string,
    rootDir: string,
    options: { retentionDays?: number } = {},
  ): Promise<ArtifactRef | null> {
    void options;
    const files = await listFilesRecursively(rootDir);
    if (files.length === 0) return null;
    const target = join(this.root, String(this.currentRunId), name);
    if ((await this.all()).some((meta) => meta.runId === this.currentRunId && meta.name === name)) {
      // Same rule as GitHub: artifacts are immutable, one per name per run.
      throw new Error(`an artifact named ${name} already exists in run ${this.currentRunId}`);
    }
    let sizeBytes = 0;
    for (const file of files) {
      const destination = join(target, "files", relative(rootDir, file));
      await cp(file, destination);
      sizeBytes += (await lstat(file)).size;
    }
    const id = Math.max(0, ...(await this.all()).map((meta) => meta.id)) + 1;
    const meta = { schemaVersion: 1 as const, id, name, runId: this.currentRunId, sizeBytes };
    await writeFile(join(target, "artifact.json"), `${JSON.stringify(meta, null, 2)}\n`);
    return { id, name, sizeBytes };
  }

  async listCurrentRun(): Promise<ArtifactRef[]> {
    return (await this.all())
      .filter((meta) => meta.runId === this.currentRunId)
      .map((meta) => ({ id: meta.id, name: meta.name, sizeBytes: meta.sizeBytes }));
  }

  async download(
    artifact: ArtifactRef,
    destination: string,
    limits: BaselineLimits = defaultBaselineLimits,
  ): Promise<void> {
    const meta = (await this.all()).find((candidate) => candidate.id === artifact.id);
    if (!meta) throw new Error(`artifact ${artifact.id} (${artifact.name}) not found in ${this.root}`);
    const label = `artifact ${meta.name} (${meta.id})`;
    const stored = join(this.root, String(meta.runId), meta.name);
    // An artifact stored as an archive (what GitHub hands out) is extracted like a downloaded one.
    const archive = join(stored, "artifact.zip");
    if (
      await lstat(archive).then(
        (s) => s.isFile(),
        () => false,
      )
    ) {
      await extractArtifactZip(label, archive, destination, limits);
      return;
    }
    try {
      await copyTreeWithLimits(join(stored, "files"), destination, limits);
    } catch (error) {
      if (error instanceof ArchiveLimitError) throw new UntrustedBaselineError(refusalMessage(label, error));
      throw error;
    }
  }
}
