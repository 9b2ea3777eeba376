import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { EnvHttpProxyAgent, fetch } from "undici";
import { GitHubCallError } from "./api-failure.js";
import type { GitHubCallPolicy, GitHubClient } from "./client.js";

/**
 * Downloads another run's artifact as the zip GitHub hands out: the REST API answers with a 302 to a
 * signed blob-storage URL, which is fetched and written to `file`. The API call is retried by the client;
 * the blob download, which is not GitHub's API, is retried here on the same policy (a fresh signed URL
 * each attempt, n² backoff units between attempts, each attempt ended after `attemptTimeoutMs` without a
 * byte). The download stops at `maxBytes`: an artifact is untrusted input.
 */

export interface RunArtifactDownload {
  owner: string;
  repo: string;
  artifactId: number;
  /** `artifact vllm-perf-gate-baseline (1234)`, for messages. */
  label: string;
  maxBytes: number;
}

class BlobDownloadError extends Error {
  override readonly name = "BlobDownloadError";
}

/** Over the limit: not retried, whatever the policy. */
export class DownloadTooLargeError extends Error {
  override readonly name = "DownloadTooLargeError";
}

/** Honours HTTPS_PROXY / NO_PROXY as @actions/http-client does; made on the first download. */
let proxyAware: EnvHttpProxyAgent | null = null;

export async function downloadRunArtifact(
  client: GitHubClient,
  download: RunArtifactDownload,
  file: string,
  policy: GitHubCallPolicy,
): Promise<void> {
  let lastError: unknown = null;
  for (let attempt = 1; attempt <= policy.retries + 1; attempt++) {
    if (attempt > 1) await sleep((attempt - 1) ** 2 * policy.backoffUnitMs);
    const location = await signedUrl(client, download);
    try {
      await fetchTo(location, file, download.maxBytes, policy.attemptTimeoutMs);
      return;
    } catch (error) {
      await rm(file, { force: true });
      if (error instanceof DownloadTooLargeError) throw error;
      lastError = error;
    }
  }
  throw new Error(
    `downloading ${download.label}: the download from blob storage failed after ${policy.retries + 1} attempts (${(lastError as Error).message})`,
  );
}

/** GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/zip: a 302 to the archive's signed URL
 * (https://docs.github.com/en/rest/actions/artifacts#download-an-artifact). */
async function signedUrl(client: GitHubClient, download: RunArtifactDownload): Promise<string> {
  let response: { status: number; headers: Record<string, unknown> };
  try {
    response = await client.rest.actions.downloadArtifact({
      owner: download.owner,
      repo: download.repo,
      artifact_id: download.artifactId,
      archive_format: "zip",
      request: { redirect: "manual" },
    });
  } catch (error) {
    throw new GitHubCallError(`downloading ${download.label}`, error);
  }
  const location = response.headers.location;
  if (response.status !== 302 || typeof location !== "string")
    throw new Error(
      `downloading ${download.label}: expected a redirect to the archive, got HTTP ${response.status}`,
    );
  return location;
}

/** The archive written to `file`, with an idle deadline and a byte limit; no signed URL in any message. */
async function fetchTo(url: string, file: string, maxBytes: number, idleMs: number): Promise<void> {
  const host = new URL(url).host;
  const controller = new AbortController();
  const idle = setTimeout(() => controller.abort(new Error(`no byte from ${host} for ${idleMs} ms`)), idleMs);
  try {
    proxyAware ??= new EnvHttpProxyAgent();
    const response = await fetch(url, { signal: controller.signal, dispatcher: proxyAware });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new BlobDownloadError(`${host} answered HTTP ${response.status}`);
    }
    let bytes = 0;
    await pipeline(
      Readable.fromWeb(response.body as never),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          if (bytes > maxBytes)
            throw new DownloadTooLargeError(`more than the ${maxBytes} bytes allowed (limit maxTotalBytes)`);
          idle.refresh();
          yield chunk;
        }
      },
      createWriteStream(file),
    );
  } catch (error) {
    if (error instanceof DownloadTooLargeError || error instanceof BlobDownloadError) throw error;
    const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
    // undici says "fetch failed" and keeps the reason (refused, reset) as the cause.
    const cause = reason.cause instanceof Error ? `: ${reason.cause.message}` : "";
    throw new BlobDownloadError(`${host}: ${reason.message}${cause}`);
  } finally {
    clearTimeout(idle);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
