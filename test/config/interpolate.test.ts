import { describe, expect, it } from "vitest";
import { formatPath, interpolateEnvironment, templateView } from "../../src/config/interpolate.js";
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

const cellsYaml = `cells:
  - { name: a, dataset: { type: synthetic, input_tokens: "\${IN}", output_tokens: 8 }, load: { type: concurrency, concurrency: "\${C}" }, size: { requests: 1 } }
`;

describe("templates and values", () => {
  it("keeps every template by path (keys with dots too) and every value read, once per name", () => {
    const result = interpolateEnvironment(
      { a: { "x.y": "k=${KEY}" }, b: ["${KEY}", "${UNSET:-d}"], c: "${OTHER}" },
      { KEY: "value-one", OTHER: "value-two" },
    );
    expect(result.templates).toEqual([
      { path: ["a", "x.y"], template: "k=${KEY}" },
      { path: ["b", 0], template: "${KEY}" },
      { path: ["b", 1], template: "${UNSET:-d}" },
      { path: ["c"], template: "${OTHER}" },
    ]);
    // A default comes from the file, not the environment: not a value to hide.
    expect(result.values).toEqual([
      { name: "KEY", value: "value-one" },
      { name: "OTHER", value: "value-two" },
    ]);
    const view = templateView(result.value, result.templates);
    expect(view).toEqual({ a: { "x.y": "k=${KEY}" }, b: ["${KEY}", "${UNSET:-d}"], c: "${OTHER}" });
    // The original is untouched, and a part of the whole can be viewed from its own path.
    expect(result.value).toEqual({ a: { "x.y": "k=value-one" }, b: ["value-one", "d"], c: "value-two" });
    expect(templateView((result.value as { b: string[] }).b, result.templates, ["b"])).toEqual([
      "${KEY}",
      "${UNSET:-d}",
    ]);
  });

  it("accepts ${VAR} in number fields: interpolated, then read as a number", () => {
    const loaded = parseConfigText(
      `version: 1\nserver: { kind: sim, port: "\${PORT}" }\nmodel: { name: m }\n${cellsYaml}`,
      "c.yml",
      { env: { PORT: "8123", IN: " 64 ", C: "4" } },
    );
    expect(loaded.config.server).toMatchObject({ kind: "sim", port: 8123 });
    const cell = loaded.config.cells[0]!;
    expect(cell.load).toMatchObject({ type: "concurrency", concurrency: 4 });
    expect(cell.dataset).toMatchObject({ input_tokens: 64 });
    expect(templateView(loaded.config, loaded.interpolation.templates).cells[0]?.load).toMatchObject({
      concurrency: "${C}",
    });
  });

  it("names the field and the template, never the value, when it is no number or out of range", () => {
    const text = `version: 1\nserver: { kind: sim, port: "\${PORT}" }\nmodel: { name: m }\nsampling: { top_p: "\${TOP_P}" }\n${cellsYaml}`;
    let message = "";
    try {
      parseConfigText(text, "c.yml", {
        env: { PORT: "99999999", IN: "8", C: "four-secret", TOP_P: "p-secret" },
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      "server.port: expected a TCP port (0-65535), got the value of ${PORT} (not shown)",
    );
    expect(message).toMatch(
      /cells\[0\]\.load\.concurrency: expected .*, got the value of \$\{C\} \(not shown\), which is not a number/,
    );
    expect(message).toMatch(/sampling\.top_p: expected number, got the value of \$\{TOP_P\} \(not shown\)/);
    expect(message).not.toMatch(/99999999|four-secret|p-secret/);
  });

  it("a number field written as a plain string is still refused (only ${VAR} is read as a number)", () => {
    expect(() =>
      parseConfigText(
        `version: 1\nserver: { kind: sim, port: "8000" }\nmodel: { name: m }\n${cellsYaml}`,
        "c.yml",
        {
          env: { IN: "8", C: "1" },
        },
      ),
    ).toThrow(/server\.port: expected a TCP port \(0-65535\), got "8000"/);
  });

  it("refuses a base_url or metrics_url with credentials, naming api_key_env", () => {
    const text = `version: 1
server: { kind: external, base_url: "https://user:\${PASS}@vllm.internal", metrics_url: "http://u:p@h/metrics" }
model: { name: m }
${cellsYaml}`;
    let message = "";
    try {
      parseConfigText(text, "c.yml", { env: { PASS: "hunter2-hunter2", IN: "8", C: "1" } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/c\.yml:2:\d+ server\.base_url: credentials in the URL .*server\.api_key_env/);
    expect(message).toMatch(/server\.metrics_url: credentials in the URL/);
    expect(message).not.toContain("hunter2");
  });
});
