import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import type { Outbound } from "./outbound.js";

const tailCapacity = 200;

/**
 * The server's output, written line by line through the job's output seam (cleaned before it touches the
 * disk), with the latest cleaned lines kept in memory for failure messages and cause detection.
 */
export class ServerLog {
  readonly path: string;
  readonly #stream: WriteStream;
  /** Takes a raw line; receives it cleaned. */
  readonly #write: (line: string) => void;
  readonly #tail: string[] = [];
  readonly #listeners = new Set<(line: string) => void>();
  #closed = false;
  readonly #openedAt = performance.now();

  constructor(path: string, outbound: Outbound) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    this.#stream = createWriteStream(path, { flags: "a" });
    // A failing log disk must not take the measurement down with it.
    this.#stream.on("error", () => {});
    this.#write = outbound.through((clean) => {
      this.#tail.push(clean);
      if (this.#tail.length > tailCapacity) this.#tail.shift();
      if (!this.#closed) this.#stream.write(`${clean}\n`);
      for (const listener of this.#listeners) listener(clean);
    });
  }

  /** Adds one line (the launcher's own notes go here too, prefixed so they stand out). */
  line(text: string): void {
    this.#write(text.replace(/\r$/, ""));
  }

  /** The launcher's own notes, with the seconds since the log was opened (start-up and teardown timings). */
  note(text: string): void {
    this.line(`[vllm-perf-gate +${((performance.now() - this.#openedAt) / 1000).toFixed(1)}s] ${text}`);
  }

  /** Splits a stream into lines; a partial last line is flushed when the stream ends. */
  follow(stream: Readable | null | undefined): void {
    if (!stream) return;
    let pending = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const text of lines) this.line(text);
    });
    stream.on("end", () => {
      if (pending) this.line(pending);
      pending = "";
    });
    stream.on("error", () => {});
  }

  onLine(listener: (line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  lastLines(count = 20): string[] {
    return this.#tail.slice(-count);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await new Promise<void>((resolve) => this.#stream.end(resolve));
  }
}
