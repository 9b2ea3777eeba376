import { describe, expect, it } from "vitest";
import { numberWords } from "../../src/util/number-words.js";
import { firstNumber, ScorerError, scoreAnswer } from "../../src/workload/task-score.js";
import { builtInTask } from "../../src/workload/tasks.js";

describe("scorers", () => {
  it("exact: trimmed, case and spacing ignored, a final full stop dropped", () => {
    expect(scoreAnswer("  Forty-Two. ", "forty-two", { kind: "exact" })).toBe(true);
    expect(scoreAnswer("forty two", "forty-two", { kind: "exact" })).toBe(false);
  });

  it("contains: the reference anywhere in the answer", () => {
    expect(scoreAnswer("The answer is Paris, France", "paris", { kind: "contains" })).toBe(true);
    expect(scoreAnswer("London", "paris", { kind: "contains" })).toBe(false);
  });

  it("regex: the pattern, else the reference as one; a bad pattern throws naming it", () => {
    expect(scoreAnswer("result: 0x1F", "", { kind: "regex", pattern: "0x[0-9a-f]+" })).toBe(true);
    expect(scoreAnswer("no", "^yes$", { kind: "regex", pattern: "" })).toBe(false);
    expect(() => scoreAnswer("x", "", { kind: "regex", pattern: "([" })).toThrow(ScorerError);
    expect(() => scoreAnswer("x", "", { kind: "regex", pattern: "([" })).toThrow(
      /regex scorer: "\(\[" is not a regular expression/,
    );
  });

  it("numeric: the first number within the tolerance; a reference without a number throws", () => {
    expect(scoreAnswer("It is 1,234.", "1234", { kind: "numeric", tolerance: 0 })).toBe(true);
    expect(scoreAnswer("-17", "-17", { kind: "numeric", tolerance: 0 })).toBe(true);
    expect(scoreAnswer("3.15", "3.14159", { kind: "numeric", tolerance: 0.01 })).toBe(true);
    expect(scoreAnswer("3.2", "3.14159", { kind: "numeric", tolerance: 0.01 })).toBe(false);
    expect(scoreAnswer("none", "5", { kind: "numeric", tolerance: 0 })).toBe(false);
    expect(() => scoreAnswer("5", "five", { kind: "numeric", tolerance: 0 })).toThrow(/has no number/);
    expect(firstNumber("a -2.5 b 7")).toBe(-2.5);
  });
});

describe("the built-in task set", () => {
  it("spells numbers in words", () => {
    expect(numberWords(0)).toBe("zero");
    expect(numberWords(42)).toBe("forty-two");
    expect(numberWords(105)).toBe("one hundred five");
    expect(numberWords(9999)).toBe("nine thousand nine hundred ninety-nine");
    expect(numberWords(12000)).toBe("twelve thousand");
    expect(() => numberWords(-1)).toThrow(RangeError);
  });

  it("makes the same task from the same seed, checkable by its own scorer", () => {
    const kinds = ["arithmetic", "number_words"] as const;
    for (let i = 0; i < 50; i++) {
      const task = builtInTask(7, "tasks", i, kinds);
      expect(builtInTask(7, "tasks", i, kinds)).toEqual(task);
      expect(scoreAnswer(task.reference, task.reference, task.scorer)).toBe(true);
      if (i % 2 === 0) {
        const [, a, op, b] = /What is (\d+) ([+\-*]) (\d+)\?/.exec(task.prompt)!;
        const value =
          op === "+" ? Number(a) + Number(b) : op === "-" ? Number(a) - Number(b) : Number(a) * Number(b);
        expect(task.reference).toBe(String(value));
      } else expect(task.prompt).toMatch(/^Task \d+: Write the number \d+ in English words\./);
    }
    expect(builtInTask(8, "tasks", 0, kinds).prompt).not.toBe(builtInTask(7, "tasks", 0, kinds).prompt);
  });
});
