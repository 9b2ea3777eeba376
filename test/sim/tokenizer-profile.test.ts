import { describe, expect, it } from "vitest";
import { parseFault } from "../../src/sim/cli-args.js";
import {
  applyOverrides,
  builtInProfile,
  builtInProfiles,
  effectiveCosts,
  knobNames,
  knobsSchema,
  ProfileError,
  parseSetting,
  resolveProfile,
} from "../../src/sim/profile.js";
import {
  chatPromptText,
  countTokens,
  detokenize,
  tokenize,
  tokenText,
  vocabularySize,
} from "../../src/sim/tokenizer.js";

describe("tokenizer: one token per whitespace-separated word", () => {
  it("counts words whatever the whitespace, and tokenize/countTokens agree", () => {
    for (const text of [
      "",
      "   ",
      "one",
      " two  words ",
      "a\tb\nc\r\nd",
      "naïve café\u00a0x",
      "w0 w1 w2 w3",
    ]) {
      expect(tokenize(text)).toHaveLength(countTokens(text));
    }
    expect(countTokens(" two  words ")).toBe(2);
    expect(countTokens("a\tb\nc\r\nd")).toBe(4);
  });

  it("is deterministic and round-trips through detokenize", () => {
    const ids = tokenize("hello world hello t42 baba");
    expect(ids[0]).toBe(ids[2]);
    expect(ids[3]).toBe(42);
    expect(ids[4]).toBe(0);
    expect(tokenize(detokenize(ids))).toEqual(ids);
    const generated = [5, 77, vocabularySize - 1];
    expect(generated.map((id, i) => tokenText(id, i === 0)).join("")).toBe(detokenize(generated));
  });

  it("the chat template adds one token per message (its role)", () => {
    expect(
      countTokens(
        chatPromptText([
          { role: "system", content: "be brief" },
          { role: "user", content: "hi" },
        ]),
      ),
    ).toBe(5);
  });
});

describe("profiles and knobs", () => {
  it("every built-in profile is valid and documented", () => {
    for (const [name, profile] of Object.entries(builtInProfiles)) {
      const { name: _n, description, ...knobs } = profile;
      expect(knobsSchema.safeParse(knobs).success, name).toBe(true);
      expect(Object.keys(knobs).sort()).toEqual([...knobNames].sort());
      expect(description.length).toBeGreaterThan(10);
    }
  });

  it("overrides are typed from --set text and validated atomically", () => {
    expect(parseSetting("max-num-seqs=12")).toEqual(["max_num_seqs", 12]);
    expect(parseSetting("enable_prefix_caching=false")).toEqual(["enable_prefix_caching", false]);
    expect(() => parseSetting("nope=1")).toThrow(ProfileError);
    const base = builtInProfile("small-gpu");
    expect(() => applyOverrides(base, { max_num_seqs: 4, decode_per_seq_ms: -1 })).toThrow(
      /decode_per_seq_ms/,
    );
    expect(applyOverrides(base, { decode_per_seq_ms: 0.033 }).decode_per_seq_ms).toBe(0.033);
    expect(() => resolveProfile("no-such-profile")).toThrow(/unknown simulator profile/);
  });

  it("fp8 cache dtype applies its capacity and cost factors", () => {
    const fp8 = effectiveCosts(builtInProfile("fp8-kv"));
    const auto = effectiveCosts(builtInProfile("small-gpu"));
    expect(fp8.numGpuBlocks).toBe(auto.numGpuBlocks * 2);
    expect(fp8.prefillPerTokenMs).toBeGreaterThan(auto.prefillPerTokenMs);
    expect(fp8.decodePerSeqMs).toBeLessThan(auto.decodePerSeqMs);
  });

  it("--fault specs map to knobs", () => {
    expect(parseFault("error:429:0.25")).toEqual({ fault_error_status: 429, fault_error_rate: 0.25 });
    expect(parseFault("midstream-error:0.5:7")).toEqual({
      fault_midstream_error_rate: 0.5,
      fault_after_tokens: 7,
    });
    expect(parseFault("slow-start:2.5")).toEqual({ startup_delay_s: 2.5 });
    expect(() => parseFault("meteor")).toThrow(/unknown fault/);
  });
});
