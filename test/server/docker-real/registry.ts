import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A minimal Docker Registry HTTP API v2 on 127.0.0.1 (which docker treats as an insecure-allowed
 * registry, so plain http works): what `docker push` and `docker pull` need. Blobs are kept in memory by
 * digest; manifests by repository and by tag or digest, with their media type.
 */
export interface LocalRegistry {
  /** host:port, e.g. 127.0.0.1:45123 */
  host: string;
  close(): Promise<void>;
}

const digestOf = (body: Buffer) => `sha256:${createHash("sha256").update(body).digest("hex")}`;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const blobs = new Map<string, Buffer>();
  const uploads = new Map<string, Buffer[]>();
  const manifests = new Map<string, { body: Buffer; type: string; digest: string }>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://registry");
    const method = request.method ?? "GET";
    const body = await readBody(request);
    const send = (status: number, headers: Record<string, string> = {}, content?: Buffer) => {
      response.writeHead(status, { "Docker-Distribution-API-Version": "registry/2.0", ...headers });
      response.end(method === "HEAD" ? undefined : content);
    };
    if (url.pathname === "/v2/" || url.pathname === "/v2")
      return send(200, { "Content-Type": "application/json" }, Buffer.from("{}"));
    let match = /^\/v2\/(.+)\/blobs\/uploads\/?$/.exec(url.pathname);
    if (match && method === "POST") {
      const uuid = randomUUID();
      uploads.set(uuid, []);
      return send(202, {
        Location: `/v2/${match[1]}/blobs/uploads/${uuid}`,
        "Docker-Upload-UUID": uuid,
        Range: "0-0",
        "Content-Length": "0",
      });
    }
    match = /^\/v2\/(.+)\/blobs\/uploads\/([0-9a-f-]+)$/.exec(url.pathname);
    if (match) {
      const [, name, uuid] = match as unknown as [string, string, string];
      const parts = uploads.get(uuid);
      if (!parts) return send(404);
      if (body.length > 0) parts.push(body);
      const size = parts.reduce((sum, part) => sum + part.length, 0);
      if (method === "PATCH") {
        return send(202, {
          Location: `/v2/${name}/blobs/uploads/${uuid}`,
          "Docker-Upload-UUID": uuid,
          Range: `0-${Math.max(0, size - 1)}`,
          "Content-Length": "0",
        });
      }
      if (method === "PUT") {
        const content = Buffer.concat(parts);
        const digest = digestOf(content);
        if (url.searchParams.get("digest") !== digest) return send(400);
        blobs.set(digest, content);
        uploads.delete(uuid);
        return send(201, {
          Location: `/v2/${name}/blobs/${digest}`,
          "Docker-Content-Digest": digest,
          "Content-Length": "0",
        });
      }
      return send(405);
    }
    match = /^\/v2\/(.+)\/blobs\/(sha256:[0-9a-f]{64})$/.exec(url.pathname);
    if (match && (method === "GET" || method === "HEAD")) {
      const content = blobs.get(match[2]!);
      if (!content) return send(404);
      return send(
        200,
        {
          "Content-Type": "application/octet-stream",
          "Content-Length": String(content.length),
          "Docker-Content-Digest": match[2]!,
        },
        content,
      );
    }
    match = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname);
    if (match) {
      const [, name, reference] = match as unknown as [string, string, string];
      if (method === "PUT") {
        const digest = digestOf(body);
        const type =
          request.headers["content-type"] ?? "application/vnd.docker.distribution.manifest.v2+json";
        const entry = { body, type, digest };
        manifests.set(`${name}:${reference}`, entry);
        manifests.set(`${name}@${digest}`, entry);
        return send(201, {
          Location: `/v2/${name}/manifests/${digest}`,
          "Docker-Content-Digest": digest,
          "Content-Length": "0",
        });
      }
      if (method === "GET" || method === "HEAD") {
        const entry = manifests.get(
          reference.startsWith("sha256:") ? `${name}@${reference}` : `${name}:${reference}`,
        );
        if (!entry)
          return send(
            404,
            { "Content-Type": "application/json" },
            Buffer.from('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}'),
          );
        return send(
          200,
          {
            "Content-Type": entry.type,
            "Content-Length": String(entry.body.length),
            "Docker-Content-Digest": entry.digest,
          },
          entry.body,
        );
      }
    }
    return send(404);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
