/**
 * `${VAR}` and `${VAR:-default}` in string values are replaced from the environment before validation.
 * The places that were filled are remembered so that errors and summaries show the template, never the
 * value (it may be a secret).
 */
export interface Interpolated {
  value: unknown;
  /** Dotted paths (as in error messages) whose value came from the environment, with their template. */
  fromEnvironment: Map<string, string>;
  problems: { path: (string | number)[]; message: string }[];
}

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\$/g;

export function interpolateEnvironment(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): Interpolated {
  const fromEnvironment = new Map<string, string>();
  const problems: Interpolated["problems"] = [];

  const visit = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === "string") {
      if (!node.includes("$")) return node;
      let used = false;
      const replaced = node.replace(
        reference,
        (match, name: string | undefined, fallback: string | undefined) => {
          if (match === "$$") return "$";
          used = true;
          const found = env[name!];
          if (found !== undefined && found !== "") return found;
          if (fallback !== undefined) return fallback;
          problems.push({
            path,
            message: `environment variable ${name} is not set (referenced as \${${name}})`,
          });
          return "";
        },
      );
      if (used) fromEnvironment.set(formatPath(path), node);
      return replaced;
    }
    if (Array.isArray(node)) return node.map((item, index) => visit(item, [...path, index]));
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, visit(item, [...path, key])]),
      );
    }
    return node;
  };

  return { value: visit(value, []), fromEnvironment, problems };
}

/** `cells[2].load.rate` */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text === "" ? "(top level)" : text;
}
