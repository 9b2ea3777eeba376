import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readJson } from "./body-reader.js";
import { chatPromptTokens, errorBody, ProtocolError } from "./protocol.js";
import type { RouteHost } from "./route-host.js";
import { detokenize, tokenize } from "./tokenizer.js";

/** GET /v1/models: the one served model, in vLLM's shape. */
export function models(server: RouteHost): unknown {
  const created = Math.floor(Date.now() / 1000);
  const model = server.options.model;
  return {
    object: "list",
    data: [
      {
        id: model,
        object: "model",
        created,
        owned_by: "vllm",
        root: model,
        parent: null,
        max_model_len: server.profile.max_model_len,
        permission: [
          {
            id: `modelperm-${randomUUID().replaceAll("-", "")}`,
            object: "model_permission",
            created,
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: "*",
            group: null,
            is_blocking: false,
          },
        ],
      },
    ],
  };
}

/** POST /tokenize: a prompt or chat messages to token ids. */
export async function tokenizeRoute(
  server: RouteHost,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req);
  const value = body.ok ? (body.value as Record<string, unknown> | null) : null;
  let tokens: number[];
  try {
    if (value && typeof value.prompt === "string") tokens = tokenize(value.prompt);
    else if (value && value.messages !== undefined) tokens = chatPromptTokens(value.messages);
    else throw new ProtocolError(400, "POST /tokenize expects a prompt string or a messages list.");
  } catch (error) {
    const e = error instanceof ProtocolError ? error : new ProtocolError(400, String(error));
    server.responses.sendJson(res, e.status, errorBody(e.status, e.message, e.param), "/tokenize");
    return;
  }
  server.responses.sendJson(
    res,
    200,
    { count: tokens.length, max_model_len: server.profile.max_model_len, tokens, token_strs: null },
    "/tokenize",
  );
}

/** POST /detokenize: token ids back to text. */
export async function detokenizeRoute(
  server: RouteHost,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req);
  const value = body.ok ? (body.value as Record<string, unknown> | null) : null;
  const tokens = value?.tokens;
  if (!Array.isArray(tokens) || !tokens.every((id) => Number.isInteger(id) && (id as number) >= 0)) {
    server.responses.sendJson(
      res,
      400,
      errorBody(400, "POST /detokenize expects tokens: a list of token ids.", "tokens"),
      "/detokenize",
    );
    return;
  }
  server.responses.sendJson(res, 200, { prompt: detokenize(tokens as number[]) }, "/detokenize");
}
