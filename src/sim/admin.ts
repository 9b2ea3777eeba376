import type { IncomingMessage, ServerResponse } from "node:http";
import { readJson } from "./body-reader.js";
import { coerceOverrides, ProfileError } from "./profile.js";
import { errorBody } from "./protocol.js";
import type { RouteHost } from "./route-host.js";

/** GET /admin/config (and dev mode's /server_info): the profile and the engine's state. */
export function adminView(server: RouteHost): unknown {
  return {
    profile: server.profile,
    model: server.options.model,
    seed: server.options.seed,
    device: server.engine.device,
    speedFactor: server.engine.speedFactor,
    prefillFactor: server.engine.prefillFactor,
    kvCapacityBlocks: server.engine.kvCapacityBlocks,
    completedRequests: server.completedRequests,
  };
}

/** POST /admin/config: knobs changed at run time, checked as a profile file's are. */
export async function adminConfig(
  server: RouteHost,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req);
  if (!body.ok || typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) {
    server.responses.sendJson(
      res,
      400,
      errorBody(400, "POST /admin/config expects a JSON object of knobs"),
      "/admin/config",
    );
    return;
  }
  try {
    server.setProfile(
      coerceOverrides(body.value as Record<string, string | number | boolean>),
      "POST /admin/config",
    );
  } catch (error) {
    if (error instanceof ProfileError) {
      server.responses.sendJson(res, 400, errorBody(400, error.message), "/admin/config");
      return;
    }
    throw error;
  }
  server.responses.sendJson(res, 200, adminView(server), "/admin/config");
}

/** GET /admin/chunks: the chunk-time truth for a client in another process; ?offset=N skips records already fetched. */
export function adminChunks(
  server: RouteHost,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): void {
  const offset = Number(new URL(req.url ?? "/", "http://sim").searchParams.get("offset") ?? 0);
  const from = Number.isInteger(offset) && offset > 0 ? offset : 0;
  server.responses.sendJson(
    res,
    200,
    {
      recording: server.options.recordChunkTimes,
      total: server.chunkLog.length,
      records: server.chunkLog.slice(from),
    },
    path,
  );
}
