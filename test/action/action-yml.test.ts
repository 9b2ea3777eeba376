import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { outputNames } from "../../src/action/action-io.js";
import { parseActionInputs } from "../../src/action/inputs.js";

interface ActionYml {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string; post: string; "post-if": string };
}

const actionYml = async () =>
  parse(await readFile(new URL("../../action.yml", import.meta.url), "utf8")) as ActionYml;

describe("action.yml agrees with the code", () => {
  it("declares exactly the inputs the action reads, with the same defaults", async () => {
    const yml = await actionYml();
    const read = new Set<string>();
    const unset = parseActionInputs({
      getInput: (name) => {
        read.add(name);
        return "";
      },
    });
    expect([...read].sort()).toEqual(Object.keys(yml.inputs).sort());
    const withYmlDefaults = parseActionInputs({
      getInput: (name) => {
        const value = yml.inputs[name]?.default ?? "";
        return value.startsWith("${{") ? "" : value;
      },
    });
    expect(withYmlDefaults).toEqual(unset);
    for (const [name, input] of Object.entries(yml.inputs)) expect(input.description, name).not.toBe("");
  });

  it("declares every output the action sets and runs on node24 with an always() post step", async () => {
    const yml = await actionYml();
    expect(Object.keys(yml.outputs).sort()).toEqual(Object.values(outputNames).sort());
    expect(yml.runs).toMatchObject({ using: "node24", post: "dist/action/post.js", "post-if": "always()" });
  });
});
