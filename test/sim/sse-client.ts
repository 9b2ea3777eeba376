/**
 * A plain OpenAI-style streaming client, as the stock SDKs read SSE: fetch, split on blank lines,
 * strip "data: ", stop at [DONE]. Times are taken on arrival of each event (performance.timeOrigin +
 * performance.now(), like the simulator's chunk records).
 */
interface SseEvent {
  data: string;
  json: unknown;
  at: number;
}

export interface StreamResult {
  status: number;
  contentType: string | null;
  sentAt: number;
  events: SseEvent[];
}

const wallNow = (): number => performance.timeOrigin + performance.now();

export async function postStream(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<StreamResult> {
  const sentAt = wallNow();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const events: SseEvent[] = [];
  if (!response.body)
    return { status: response.status, contentType: response.headers.get("content-type"), sentAt, events };
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body) {
    const at = wallNow();
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      for (const line of block.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const data = line.slice(6);
        events.push({ data, json: data === "[DONE]" ? undefined : JSON.parse(data), at });
      }
    }
  }
  return { status: response.status, contentType: response.headers.get("content-type"), sentAt, events };
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

/** Words of a prompt of exactly n tokens under the simulator's tokenizer. */
export function promptOf(n: number, tag = "w"): string {
  return Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
}
