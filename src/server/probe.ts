import { z } from "zod";

/** The few server endpoints the launcher reads (vLLM's OpenAI-compatible server; the simulator mirrors it). */

const modelsResponseSchema = z.object({
  data: z.array(
    z.looseObject({
      id: z.string(),
      root: z.string().nullish(),
      max_model_len: z.number().nullish(),
    }),
  ),
});

export type ServedModel = { id: string; root: string | null; maxModelLen: number | null };

export interface ProbeTarget {
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
}

const probeTimeoutMs = 5_000;

/** A probe answered with an HTTP error status. */
export class ProbeStatusError extends Error {
  override readonly name = "ProbeStatusError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** 401 and 403: the server wants credentials the client did not send, or refuses the ones it sent. */
export const isUnauthorizedStatus = (status: number): boolean => status === 401 || status === 403;

function headers(target: ProbeTarget): Record<string, string> {
  return target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
}

export async function getStatus(target: ProbeTarget, path: string): Promise<number> {
  const response = await fetch(`${target.baseUrl}${path}`, {
    headers: headers(target),
    signal: AbortSignal.timeout(probeTimeoutMs),
  });
  await response.body?.cancel();
  return response.status;
}

export async function getText(url: string, apiKey?: string): Promise<string> {
  const response = await fetch(url, {
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    signal: AbortSignal.timeout(probeTimeoutMs),
  });
  const text = await response.text();
  if (!response.ok)
    throw new ProbeStatusError(`GET ${url} answered HTTP ${response.status}`, response.status);
  return text;
}

export async function getServedModels(target: ProbeTarget): Promise<ServedModel[]> {
  const text = await getText(`${target.baseUrl}/v1/models`, target.apiKey);
  const parsed = modelsResponseSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(
      `GET ${target.baseUrl}/v1/models: expected {"data":[{"id":...}]}, got ${text.slice(0, 200)}`,
    );
  return parsed.data.data.map((model) => ({
    id: model.id,
    root: model.root ?? null,
    maxModelLen: model.max_model_len ?? null,
  }));
}

export async function getVllmVersion(target: ProbeTarget): Promise<string | null> {
  try {
    const json = JSON.parse(await getText(`${target.baseUrl}/version`, target.apiKey)) as {
      version?: unknown;
    };
    return typeof json.version === "string" ? json.version : null;
  } catch {
    return null;
  }
}
