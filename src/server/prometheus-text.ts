/**
 * Just enough of the Prometheus text exposition format for the launcher and the run summary: sample lines
 * `name{label="value",...} number [timestamp]`, comments skipped, label values unescaped.
 */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const rawLine of text.split("\n")) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const sample = parseSampleLine(line);
    if (sample) samples.push(sample);
  }
  return samples;
}

function parseSampleLine(line: string): PrometheusSample | undefined {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) return undefined;
  const name = nameMatch[0];
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    let index = 1;
    for (;;) {
      while (rest[index] === " " || rest[index] === ",") index++;
      if (rest[index] === "}") {
        index++;
        break;
      }
      const keyMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(rest.slice(index));
      if (
        !keyMatch ||
        rest[index + keyMatch[0].length] !== "=" ||
        rest[index + keyMatch[0].length + 1] !== '"'
      ) {
        return undefined;
      }
      index += keyMatch[0].length + 2;
      let value = "";
      while (index < rest.length && rest[index] !== '"') {
        if (rest[index] === "\\") {
          const next = rest[index + 1];
          value += next === "n" ? "\n" : (next ?? "");
          index += 2;
        } else value += rest[index++];
      }
      if (index >= rest.length) return undefined;
      index++;
      labels[keyMatch[0]] = value;
    }
    rest = rest.slice(index);
  }
  const valueText = rest.trim().split(/\s+/)[0];
  if (valueText === undefined || valueText === "") return undefined;
  const value =
    valueText === "+Inf"
      ? Number.POSITIVE_INFINITY
      : valueText === "-Inf"
        ? Number.NEGATIVE_INFINITY
        : Number(valueText);
  if (Number.isNaN(value) && valueText !== "NaN") return undefined;
  return { name, labels, value };
}

/** The labels of `vllm:cache_config_info` (block size, cache dtype, prefix caching, memory utilisation, ...). */
export function cacheConfigFromMetrics(samples: readonly PrometheusSample[]): Record<string, string> | null {
  const info = samples.find((sample) => sample.name === "vllm:cache_config_info");
  if (!info) return null;
  return Object.fromEntries(Object.entries(info.labels).sort(([a], [b]) => a.localeCompare(b)));
}
