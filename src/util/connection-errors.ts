/**
 * One description of a failed connection, for every place that reaches a server over HTTP (the readiness
 * probe, `--base-url`'s check, the load's requests): which address failed, how, and what to check, instead
 * of undici's bare "fetch failed". Node and undici put the system error (code, address, port) on `cause`.
 */

interface SystemErrorFields {
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  cause?: unknown;
}

/** The first system error code on the error or its causes (ECONNREFUSED, ENOTFOUND, ...), or null. */
function systemErrorOf(error: unknown): { code: string; address: string | null } | null {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const fields = current as SystemErrorFields;
    if (typeof fields.code === "string" && /^E[A-Z]+$/.test(fields.code)) {
      const host =
        typeof fields.address === "string"
          ? fields.address
          : typeof fields.hostname === "string"
            ? fields.hostname
            : null;
      const address =
        host === null ? null : typeof fields.port === "number" ? `${hostPart(host)}:${fields.port}` : host;
      return { code: fields.code, address };
    }
    current = fields.cause;
  }
  return null;
}

function hostPart(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** host:port of a URL, with the scheme's default port when it names none. */
function addressOfUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === "https:" ? "443" : "80")}`;
  } catch {
    return url;
  }
}

/**
 * "connection refused by 127.0.0.1:8000 (nothing listens there: check that the server is running and
 * that the URL's host and port are where it listens)"; null when the error is not a connection failure.
 * `url` names the address when the error does not.
 */
export function describeConnectionFailure(error: unknown, url: string): string | null {
  const system = systemErrorOf(error);
  if (system === null) return null;
  const address = system.address ?? addressOfUrl(url);
  switch (system.code) {
    case "ECONNREFUSED":
      return `connection refused by ${address} (nothing listens there: check that the server is running and that ${url} has the host and port it listens on)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the host of ${url} was not found (${system.code}: check the host name, or use an IP address)`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${address} is unreachable (${system.code}: check the address and that this machine has a route to it)`;
    case "ECONNRESET":
      return `${address} reset the connection (ECONNRESET: the server closed it; check the server's log, and that ${url} speaks ${url.startsWith("https:") ? "HTTPS" : "plain HTTP"})`;
    default:
      return null;
  }
}
