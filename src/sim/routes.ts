import type { IncomingMessage, ServerResponse } from "node:http";
import { adminChunks, adminConfig, adminView } from "./admin.js";
import { drain } from "./body-reader.js";
import { generate } from "./generation.js";
import { renderMetrics } from "./metrics-text.js";
import { detokenizeRoute, models, tokenizeRoute } from "./model-routes.js";
import type { RouteHost } from "./route-host.js";

/**
 * The routing of one request: the API key on /v1, then the route table (health, version, models,
 * metrics, generation, tokenizer, admin; the dev-mode routes when enabled), else 405 or 404 as
 * Starlette answers them.
 */
export async function handleRequest(
  server: RouteHost,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const receivedAt = server.options.clock.now();
  const method = req.method ?? "GET";
  const path = (req.url ?? "/").split("?")[0]!;
  if (server.dead) {
    res.destroy();
    return;
  }
  server.responses.instrument(req, res, receivedAt);
  const o = server.options;
  if (
    o.apiKey !== undefined &&
    path.startsWith("/v1") &&
    req.headers.authorization !== `Bearer ${o.apiKey}`
  ) {
    await drain(req);
    server.responses.sendJson(res, 401, { error: "Unauthorized" }, path);
    return;
  }
  const route = `${method} ${path}`;
  if (await serveRoute(server, route, path, req, res, receivedAt)) return;
  if (o.devMode && (await serveDevRoute(server, route, path, req, res))) return;
  await drain(req);
  // A path served with other methods: Starlette answers 405 with Allow (the instrumentator labels
  // requests that match no route fully handler="none").
  const allowed = routeMethods(path, o.devMode);
  if (allowed.length > 0) {
    server.responses.sendJson(res, 405, { detail: "Method Not Allowed" }, "none", {
      allow: allowed.join(", "),
    });
    return;
  }
  server.responses.sendJson(res, 404, { detail: "Not Found" }, "none");
}

/** The route table: true when `route` ("METHOD /path") is one of its routes, once answered. */
async function serveRoute(
  server: RouteHost,
  route: string,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  receivedAt: number,
): Promise<boolean> {
  switch (route) {
    case "GET /health":
    case "GET /ping":
    case "POST /ping":
      await drain(req);
      server.responses.sendEmpty(res, server.starting() || server.profile.engine_dead ? 503 : 200, path);
      return true;
    case "GET /version":
      server.responses.sendJson(res, 200, { version: server.profile.vllm_version }, path);
      return true;
    case "GET /v1/models":
      server.responses.sendJson(res, 200, models(server), path);
      return true;
    case "GET /metrics":
      server.responses.count(res, path, 200);
      res.writeHead(200, { server: "uvicorn", "content-type": "text/plain; version=0.0.4; charset=utf-8" });
      res.end(
        renderMetrics({
          engine: server.engine,
          modelName: server.options.model,
          http: server.httpMetrics,
          createdAt: server.createdAt,
          stepLateness: server.stepLatenessHistogram(),
        }),
      );
      return true;
    case "POST /v1/completions":
      await generate(server, "completions", req, res, receivedAt);
      return true;
    case "POST /v1/chat/completions":
      await generate(server, "chat", req, res, receivedAt);
      return true;
    case "POST /tokenize":
      await tokenizeRoute(server, req, res);
      return true;
    case "POST /detokenize":
      await detokenizeRoute(server, req, res);
      return true;
    case "GET /admin/config":
      server.responses.sendJson(res, 200, adminView(server), path);
      return true;
    case "GET /admin/chunks":
      adminChunks(server, req, res, path);
      return true;
    case "POST /admin/config":
      await adminConfig(server, req, res);
      return true;
  }
  return false;
}

/** vLLM's dev-mode routes (VLLM_SERVER_DEV_MODE): the cache resets and /server_info. */
async function serveDevRoute(
  server: RouteHost,
  route: string,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  if (route === "POST /reset_prefix_cache") {
    await drain(req);
    server.engine.resetPrefixCache();
    server.responses.sendEmpty(res, 200, path);
    return true;
  }
  if (route === "POST /reset_mm_cache" || route === "POST /reset_encoder_cache") {
    await drain(req);
    server.responses.sendEmpty(res, 200, path);
    return true;
  }
  if (route === "GET /server_info") {
    server.responses.sendJson(res, 200, { vllm_config: adminView(server) }, path);
    return true;
  }
  return false;
}

const routes: Record<string, readonly string[]> = {
  "/health": ["GET"],
  "/ping": ["GET", "POST"],
  "/version": ["GET"],
  "/v1/models": ["GET"],
  "/metrics": ["GET"],
  "/v1/completions": ["POST"],
  "/v1/chat/completions": ["POST"],
  "/tokenize": ["POST"],
  "/detokenize": ["POST"],
  "/admin/config": ["GET", "POST"],
  "/admin/chunks": ["GET"],
};
const devRoutes: Record<string, readonly string[]> = {
  "/reset_prefix_cache": ["POST"],
  "/reset_mm_cache": ["POST"],
  "/reset_encoder_cache": ["POST"],
  "/server_info": ["GET"],
};

function routeMethods(path: string, devMode: boolean): readonly string[] {
  return routes[path] ?? (devMode ? devRoutes[path] : undefined) ?? [];
}
