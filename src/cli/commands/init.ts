import { existsSync } from "node:fs";
import { access, mkdir, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultConfigFile } from "../../config/load.js";
import {
  type PresetName,
  presetDescriptions,
  presetNames,
  presetText,
  type ServerKind,
  serverKinds,
} from "../../config/presets.js";
import { ExitCode, UsageError } from "../../util/errors.js";
import { type CliCommand, parseCommandArgs, stringOption } from "../command.js";

/** The JSON Schema shipped with this copy of the tool (repository checkout, npm install or action). */
function shippedSchemaPath(): string | undefined {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = resolve(directory, "schema", "vllm-perf-gate.schema.json");
    if (existsSync(candidate)) return candidate;
    directory = dirname(directory);
  }
  return undefined;
}

export const initCommand: CliCommand = {
  name: "init",
  usage: `Usage: vllm-perf-gate init [--preset NAME] [--server KIND] [--out FILE] [--force]

Writes a commented starter config.

Options:
  -p, --preset NAME   ${presetNames.join(" | ")} (default: chat)
${presetNames.map((name) => `                        ${name}: ${presetDescriptions[name]}`).join("\n")}
  -s, --server KIND   how the server is obtained: ${serverKinds.join(" | ")} (default: docker)
  -o, --out FILE      where to write (default: ${defaultConfigFile})
      --capacity      add a capacity cell: the preset's traffic searched over loads for the
                      highest one that meets its SLOs (requests per hour at the SLOs, both sides)
      --schema REF    path or URL for the yaml-language-server $schema line
                      (default: the schema file shipped with this tool, as a relative path)
  -f, --force         overwrite an existing file
  -h, --help          show this help
`,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      preset: { type: "string", short: "p" },
      server: { type: "string", short: "s" },
      out: { type: "string", short: "o" },
      schema: { type: "string" },
      capacity: { type: "boolean" },
      force: { type: "boolean", short: "f" },
    });
    if (args.help) {
      io.stdout.write(this.usage);
      return ExitCode.ok;
    }
    const preset = stringOption(args, "preset") ?? "chat";
    if (!presetNames.includes(preset as PresetName)) {
      throw new UsageError(`unknown preset "${preset}"; expected one of: ${presetNames.join(", ")}`);
    }
    const kind = stringOption(args, "server") ?? "docker";
    if (!serverKinds.includes(kind as ServerKind)) {
      throw new UsageError(`unknown server kind "${kind}"; expected one of: ${serverKinds.join(", ")}`);
    }
    const out = resolve(io.cwd, stringOption(args, "out") ?? defaultConfigFile);
    if (args.values.force !== true && (await exists(out))) {
      throw new UsageError(`${out} already exists; pass --force to overwrite it`);
    }
    const schemaRef = stringOption(args, "schema") ?? schemaReferenceFrom(dirname(out));
    await mkdir(dirname(out), { recursive: true });
    const capacity = args.values.capacity === true;
    await writeFile(out, presetText(preset as PresetName, kind as ServerKind, schemaRef, { capacity }));
    io.stdout.write(
      `wrote ${relative(io.cwd, out) || out} (preset ${preset}, server ${kind}${capacity ? ", with a capacity cell" : ""})\nnext: vllm-perf-gate validate --config ${relative(io.cwd, out) || out}\n`,
    );
    return ExitCode.ok;
  },
};

function schemaReferenceFrom(directory: string): string {
  const schema = shippedSchemaPath();
  if (!schema) return "schema/vllm-perf-gate.schema.json";
  const path = relative(directory, schema);
  return path.startsWith(".") ? path : `./${path}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
