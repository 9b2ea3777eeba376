import type { IncomingMessage } from "node:http";

/** Largest request body the simulator reads; a larger one is answered 400 "body too large". */
const maxBodyBytes = 64 * 1024 * 1024;

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Reads and discards a body the route does not use. */
export async function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  for await (const _ of req) {
    // discard
  }
}

export type JsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Plain 'data'/'end' events rather than an async iterator: a closed-loop client sends a whole wave of
 * requests at once, and the per-request cost of reading them is time every one of them waits.
 */
export function readJson(req: IncomingMessage): Promise<JsonResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData);
      req.off("end", onEnd);
      req.destroy();
      resolve({ ok: false, error: "body too large" });
    };
    const onEnd = () => {
      const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      try {
        resolve({ ok: true, value: JSON.parse(text) });
      } catch (error) {
        resolve({ ok: false, error: (error as Error).message });
      }
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.once("error", reject);
  });
}
