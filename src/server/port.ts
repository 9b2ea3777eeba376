import { createConnection, createServer } from "node:net";

/**
 * Whether a TCP port can be used by a new server. Both checks matter: a bind test catches listeners on any
 * interface, a connect test catches a listener the bind test cannot see (another network namespace, such
 * as a container publishing the port through docker-proxy on some setups).
 */
export async function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  if (await acceptsConnections(port, host)) return false;
  return canBind(port);
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    // Unspecified address: docker publishes on 0.0.0.0, vLLM binds all interfaces by default.
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function acceptsConnections(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const finish = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
  });
}
