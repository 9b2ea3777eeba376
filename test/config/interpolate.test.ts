import { describe, expect, it } from "vitest";
import { formatPath, interpolateEnvironment } from "../../src/config/interpolate.js";
import { parseConfigText } from "../../src/config/load.js";

describe("environment interpolation", () => {
  it("fills ${VAR}, ${VAR:-default} and $$, and remembers where", () => {
    const result = interpolateEnvironment(
      { a: "${HOST}:${PORT:-8000}", b: ["x", "$${NOT}"], c: 3 },
      { HOST: "gpu-1" },
    );
    expect(result.value).toEqual({ a: "gpu-1:8000", b: ["x", "${NOT}"], c: 3 });
    expect([...result.fromEnvironment]).toEqual([["a", "${HOST}:${PORT:-8000}"]]);
    expect(result.problems).toEqual([]);
  });

  it("reports a missing variable with its path", () => {
    const result = interpolateEnvironment({ server: { urls: ["${MISSING}"] } }, {});
    expect(result.problems).toEqual([
      {
        path: ["server", "urls", 0],
        message: "environment variable MISSING is not set (referenced as ${MISSING})",
      },
    ]);
  });

  it("formats paths as users write them", () => {
    expect(formatPath(["cells", 2, "load", "rate"])).toBe("cells[2].load.rate");
    expect(formatPath([])).toBe("(top level)");
  });

  it("uses the value in the parsed config", () => {
    const text = `version: 1
server: { kind: external, base_url: "\${URL}", api_key_env: KEY }
model: { name: m }
cells:
  - { name: a, dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }, load: { type: concurrency, concurrency: 1 }, size: { requests: 1 } }
`;
    const loaded = parseConfigText(text, "c.yml", { env: { URL: "http://10.0.0.1:8000" } });
    expect(loaded.config.server).toMatchObject({ kind: "external", base_url: "http://10.0.0.1:8000" });
    expect(loaded.fromEnvironment.get("server.base_url")).toBe("${URL}");
  });
});
