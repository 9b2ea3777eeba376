/**
 * `${VAR}` and `${VAR:-default}` in string values are replaced from the environment before validation.
 * For every value that was filled the template is kept (by path), and so is every value read from the
 * environment: summaries, `validate --json` and the fingerprint show the template, and the job's output
 * seam (server/outbound.ts) replaces the values wherever else they appear (logs, files, the PR comment). The value may be a secret
 * whatever its variable is called.
 */
export type ConfigPath = readonly (string | number)[];

/** A value of the config that came from `${VAR}`: where, and the text the file holds. */
export interface TemplateAt {
  readonly path: ConfigPath;
  readonly template: string;
}

/** One environment variable a config read, with the value it had. */
export interface EnvironmentValue {
  readonly name: string;
  readonly value: string;
}

/** What interpolation leaves behind for everything that prints or records the config. */
export interface ConfigInterpolation {
  /** Every filled value, by its path (array form: keys may contain dots). */
  readonly templates: readonly TemplateAt[];
  /** Every variable read and found set (one entry per name). Never print these. */
  readonly values: readonly EnvironmentValue[];
}

export interface Interpolated extends ConfigInterpolation {
  value: unknown;
  /** Dotted paths (as in error messages) whose value came from the environment, with their template. */
  fromEnvironment: Map<string, string>;
  problems: { path: (string | number)[]; message: string }[];
}

export const noInterpolation: ConfigInterpolation = { templates: [], values: [] };

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\$/g;

export function interpolateEnvironment(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): Interpolated {
  const fromEnvironment = new Map<string, string>();
  const templates: TemplateAt[] = [];
  const values = new Map<string, string>();
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
          if (found !== undefined && found !== "") {
            values.set(name!, found);
            return found;
          }
          if (fallback !== undefined) return fallback;
          problems.push({
            path,
            message: `environment variable ${name} is not set (referenced as \${${name}})`,
          });
          return "";
        },
      );
      if (used) {
        fromEnvironment.set(formatPath(path), node);
        templates.push({ path, template: node });
      }
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

  const result = visit(value, []);
  return {
    value: result,
    fromEnvironment,
    templates,
    values: [...values].map(([name, found]) => ({ name, value: found })),
    problems,
  };
}

/**
 * A deep copy of `value` (a parsed config or a part of it, found at `base` in the whole) with every value
 * that came from the environment replaced by its template. What is printed and recorded; never run it:
 * a number field filled from `${N}` holds the string "${N}" here.
 */
export function templateView<T>(value: T, templates: readonly TemplateAt[], base: ConfigPath = []): T {
  const copy = structuredClone(value) as unknown;
  let root = copy;
  for (const { path, template } of templates) {
    if (!startsWith(path, base)) continue;
    const inner = path.slice(base.length);
    if (inner.length === 0) {
      root = template;
      continue;
    }
    let node: unknown = root;
    for (const segment of inner.slice(0, -1)) {
      node =
        node !== null && typeof node === "object" ? (node as Record<string, unknown>)[segment] : undefined;
    }
    const last = inner[inner.length - 1]!;
    if (node !== null && typeof node === "object" && Object.hasOwn(node, last)) {
      (node as Record<string | number, unknown>)[last] = template;
    }
  }
  return root as T;
}

function startsWith(path: ConfigPath, base: ConfigPath): boolean {
  return base.length <= path.length && base.every((segment, index) => path[index] === segment);
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
