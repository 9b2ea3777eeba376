import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  compactHistory,
  defaultHistoryLimits,
  type HistoryLimits,
  type HistoryRecord,
  historySessions,
  parseHistory,
  serializeHistory,
  UntrustedHistoryError,
} from "../compare/history/history.js";
import { httpStatusOf } from "./api-failure.js";
import type { GitHubClient } from "./client.js";

/**
 * Where main's history lives. The default is an append-only JSON Lines file on a dedicated branch of the
 * same repository (`perf-history` by default), written through the REST contents API by base-branch jobs
 * only (they need `contents: write`; pull request jobs only read it). The artifact fallback keeps the same
 * file inside each baseline artifact instead: no branch and no write permission, but the history lives
 * only as long as the newest baseline artifact (retention), and two baseline jobs at once keep only one
 * of their records (docs/history.md).
 */

interface HistoryRead {
  records: HistoryRecord[];
  /** Blob sha of the file read (the contents API's `sha`), null when there is none yet. */
  sha: string | null;
  /** Where it was read from, for messages. */
  source: string;
}

export interface AppendOutcome {
  /** Records written (records of a session already in the history are not written twice). */
  appended: number;
  /** Sessions compaction dropped to stay inside the bound. */
  droppedSessions: string[];
  /** Writes that lost a race and were retried (409/422 from the contents API). */
  conflicts: number;
  /** The history as written. */
  records: HistoryRecord[];
}

export interface HistoryStore {
  readonly description: string;
  read(): Promise<HistoryRead>;
  append(records: readonly HistoryRecord[]): Promise<AppendOutcome>;
}

export interface BranchStoreOptions {
  owner: string;
  repo: string;
  /** The dedicated branch (input history-branch). */
  branch: string;
  /** The file on it (input history-path). */
  path: string;
  limits?: HistoryLimits;
  /** Most write attempts when other writers keep winning the race (limit maxHistoryAppendAttempts). */
  maxAttempts?: number;
  /** Wait before the next attempt (injected: tests run without waiting). */
  sleep?: (ms: number) => Promise<void>;
}

export const defaultHistoryBranch = "perf-history";
export const defaultHistoryPath = "vllm-perf-gate/history.jsonl";
const maxHistoryAppendAttempts = 6;

export class HistoryConflictError extends Error {
  override readonly name = "HistoryConflictError";
}

/** The blob sha git (and the contents API's `sha`) gives a file: sha1 of `blob <bytes>\0<content>`. */
function gitBlobSha(text: string): string {
  const content = Buffer.from(text);
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]))
    .digest("hex");
}

/** New records minus those of sessions the history already holds (a re-run of the same attempt). */
function merge(existing: readonly HistoryRecord[], incoming: readonly HistoryRecord[]): HistoryRecord[] {
  const known = new Set(existing.map((record) => record.session.id));
  return incoming.filter((record) => !known.has(record.session.id));
}

export function createBranchHistoryStore(client: GitHubClient, options: BranchStoreOptions): HistoryStore {
  const store = new BranchHistoryStore(client, options);
  return {
    description: `branch ${options.branch} (${options.path})`,
    read: () => store.read(),
    append: (records) => store.append(records),
  };
}

/** The history file on its dedicated branch, through the contents and git data APIs. */
class BranchHistoryStore {
  private readonly limits: HistoryLimits;
  private readonly maxAttempts: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly source: string;

  constructor(
    private readonly client: GitHubClient,
    private readonly options: BranchStoreOptions,
  ) {
    this.limits = options.limits ?? defaultHistoryLimits;
    this.maxAttempts = options.maxAttempts ?? maxHistoryAppendAttempts;
    this.sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    this.source = `${options.owner}/${options.repo}@${options.branch}:${options.path}`;
  }

  async read(): Promise<HistoryRead> {
    const { owner, repo, path, branch } = this.options;
    const { source, limits } = this;
    let data: unknown;
    try {
      ({ data } = await this.client.rest.repos.getContent({ owner, repo, path, ref: branch }));
    } catch (error) {
      if (httpStatusOf(error) === 404) return { records: [], sha: null, source };
      throw error;
    }
    const file = data as { type?: string; size?: number; content?: string; encoding?: string; sha?: string };
    if (Array.isArray(data) || file.type !== "file")
      throw new UntrustedHistoryError(`history ${source}: not a file`);
    if (typeof file.size !== "number" || typeof file.sha !== "string")
      throw new UntrustedHistoryError(`history ${source}: the contents API gave no size or sha`);
    // Checked before the content is fetched or decoded.
    if (file.size > limits.maxBytes)
      throw new UntrustedHistoryError(
        `history ${source}: ${file.size} bytes, more than the ${limits.maxBytes} allowed (limit maxHistoryBytes)`,
      );
    const text = await this.contentOf(file as typeof file & { size: number; sha: string });
    return { records: parseHistory(text, source, limits), sha: file.sha, source };
  }

  /** A file's text: its base64 content, or over 1 MB (no content in the JSON form) its raw form, checked by sha. */
  private async contentOf(file: {
    size: number;
    sha: string;
    content?: string;
    encoding?: string;
  }): Promise<string> {
    if (
      file.encoding === "base64" &&
      typeof file.content === "string" &&
      (file.content !== "" || file.size === 0)
    )
      return Buffer.from(file.content.replace(/\s+/g, ""), "base64").toString("utf8");
    const { owner, repo, path, branch } = this.options;
    const raw = await this.client.rest.repos.getContent({
      owner,
      repo,
      path,
      ref: branch,
      mediaType: { format: "raw" },
    });
    const text =
      typeof raw.data === "string"
        ? raw.data
        : Buffer.from(raw.data as unknown as ArrayBuffer).toString("utf8");
    if (gitBlobSha(text) !== file.sha)
      throw new HistoryConflictError(
        `history ${this.source}: changed between reading its sha and its content`,
      );
    return text;
  }

  /**
   * Appends the sessions the history does not hold yet, compacted to its bounds; a write that loses a race
   * to another writer is retried on the file as it then is, with a growing wait, up to maxAttempts.
   */
  async append(incoming: readonly HistoryRecord[]): Promise<AppendOutcome> {
    const { source, limits, maxAttempts } = this;
    let conflicts = 0;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const current = await this.read();
      const fresh = merge(current.records, incoming);
      const compaction = compactHistory([...current.records, ...fresh], limits);
      const text = serializeHistory(compaction.records);
      if (Buffer.byteLength(text) > limits.maxBytes)
        throw new UntrustedHistoryError(
          `history ${source}: one session alone is ${Buffer.byteLength(text)} bytes, more than the ${limits.maxBytes} allowed (limit maxHistoryBytes)`,
        );
      const outcome = {
        appended: fresh.length,
        droppedSessions: compaction.droppedSessions,
        conflicts,
        records: compaction.records,
      };
      if (fresh.length === 0) return outcome;
      const sessions = historySessions(fresh).map((s) => s.id);
      const message = `vllm-perf-gate: history + session ${sessions.join(", ")}${compaction.droppedSessions.length > 0 ? ` (compacted: ${compaction.droppedSessions.length} oldest session(s) dropped, limit maxHistorySessions/maxHistoryBytes)` : ""}`;
      if (await this.write(text, current.sha, message)) return outcome;
      conflicts++;
      outcome.conflicts = conflicts;
      if (attempt < maxAttempts)
        await this.sleep(Math.min(8000, 250 * 2 ** (attempt - 1)) * (0.5 + Math.random()));
    }
    throw new HistoryConflictError(
      `history ${source}: other writers changed it ${maxAttempts} times in a row; gave up (limit maxHistoryAppendAttempts ${maxAttempts})`,
    );
  }

  /** One write of the file over `sha` (null: a new file, on a new branch where there is none); false when another writer won. */
  private async write(text: string, sha: string | null, message: string): Promise<boolean> {
    const { owner, repo, path, branch } = this.options;
    try {
      if (sha === null && !(await this.branchExists())) return await this.createBranch(text);
      await this.client.rest.repos.createOrUpdateFileContents({
        owner,
        repo,
        path,
        branch,
        message,
        content: Buffer.from(text).toString("base64"),
        ...(sha ? { sha } : {}),
      });
      return true;
    } catch (error) {
      const status = httpStatusOf(error);
      // 409: the file changed since it was read; 422: it was created since (no sha supplied).
      if (status !== 409 && status !== 422) throw error;
      return false;
    }
  }

  /** A branch of its own: one commit with no parent holding only the history file. */
  private async createBranch(text: string): Promise<boolean> {
    const { owner, repo, path, branch } = this.options;
    const { data: tree } = await this.client.rest.git.createTree({
      owner,
      repo,
      tree: [{ path, mode: "100644", type: "blob", content: text }],
    });
    const { data: commit } = await this.client.rest.git.createCommit({
      owner,
      repo,
      message: "vllm-perf-gate: start the history",
      tree: tree.sha,
      parents: [],
    });
    try {
      await this.client.rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: commit.sha });
      return true;
    } catch (error) {
      if (httpStatusOf(error) === 422) return false; // another writer created it first
      throw error;
    }
  }

  private async branchExists(): Promise<boolean> {
    const { owner, repo, branch } = this.options;
    try {
      await this.client.rest.git.getRef({ owner, repo, ref: `heads/${branch}` });
      return true;
    } catch (error) {
      if (httpStatusOf(error) === 404) return false;
      throw error;
    }
  }
}

/** The file the artifact fallback keeps inside each baseline artifact. */
export const historyArtifactFile = "vllm-perf-gate-history.jsonl";

/**
 * Sessions a baseline job could not write to the history branch (after the client's retries), kept in its
 * baseline artifact (and so in its evidence) for the next baseline job of the branch to append.
 */
export const pendingHistoryFile = "vllm-perf-gate-history-pending.jsonl";

export async function writePendingSessions(dir: string, records: readonly HistoryRecord[]): Promise<void> {
  await writeFile(join(dir, pendingHistoryFile), serializeHistory([...records]));
}

/** The pending sessions a downloaded (and validated) baseline artifact carries; none when it has no file. */
export async function readPendingSessions(
  dir: string,
  limits: HistoryLimits = defaultHistoryLimits,
): Promise<HistoryRecord[]> {
  const text = await readFile(join(dir, pendingHistoryFile), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  return text === null ? [] : parseHistory(text, `baseline artifact ${pendingHistoryFile}`, limits);
}

/**
 * The artifact fallback: `previousDir` is the downloaded (and validated) newest baseline artifact, whose
 * history file is read; `append` writes the history plus the new records into `outputDir` (this job's
 * baseline artifact, uploaded by the caller).
 */
export function createArtifactHistoryStore(options: {
  previousDir: string | null;
  outputDir: string;
  limits?: HistoryLimits;
}): HistoryStore {
  const limits = options.limits ?? defaultHistoryLimits;
  const read = async (): Promise<HistoryRead> => {
    if (!options.previousDir) return { records: [], sha: null, source: "no baseline artifact" };
    const file = join(options.previousDir, historyArtifactFile);
    const source = `baseline artifact ${historyArtifactFile}`;
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (text === null) return { records: [], sha: null, source };
    return { records: parseHistory(text, source, limits), sha: null, source };
  };
  const append = async (incoming: readonly HistoryRecord[]): Promise<AppendOutcome> => {
    const current = await read();
    const fresh = merge(current.records, incoming);
    const compaction = compactHistory([...current.records, ...fresh], limits);
    await writeFile(join(options.outputDir, historyArtifactFile), serializeHistory(compaction.records));
    return {
      appended: fresh.length,
      droppedSessions: compaction.droppedSessions,
      conflicts: 0,
      records: compaction.records,
    };
  };
  return { description: `artifact file ${historyArtifactFile}`, read, append };
}
