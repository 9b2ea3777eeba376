import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import type { Outbound } from "../server/outbound.js";

/**
 * Appends JSON lines to a file as they come, flushing to the OS in small batches (every `flushMs`, or at
 * `maxPending` lines) with synchronous writes: a crash loses at most one batch, and the event loop is
 * never held by a write per request at high request rates. Each batch is written through the job's output
 * seam (a server may echo a secret in an error body or a metric label).
 */
export class JsonlAppender {
  private readonly fd: number;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly write: (text: string) => void;

  constructor(
    readonly path: string,
    outbound: Outbound,
    private readonly flushMs = 100,
    private readonly maxPending = 512,
  ) {
    this.fd = openSync(path, "a");
    this.write = outbound.through((text) => {
      writeSync(this.fd, text);
    });
  }

  append(value: unknown): void {
    if (this.closed) throw new Error(`${this.path}: append after close`);
    this.pending.push(JSON.stringify(value));
    if (this.pending.length >= this.maxPending) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.length === 0) return;
    // The seam also knows each secret's JSON-escaped form, and "***" needs no escaping: lines stay JSON.
    const text = `${this.pending.join("\n")}\n`;
    this.pending = [];
    this.write(text);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.closed = true;
  }
}
