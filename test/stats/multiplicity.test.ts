import { describe, expect, it } from "vitest";
import { graphAdjust, holmAdjust, type TestGraph } from "../../src/stats/multiplicity.js";
import { mulberry32 } from "../../src/util/random.js";

/** Holm as a graph (Bretz et al. 2009, Figure 1): weights 1/m, every edge 1/(m − 1). */
function holmGraph(m: number): TestGraph {
  return {
    weights: new Array<number>(m).fill(1 / m),
    transitions: Array.from({ length: m }, (_, j) =>
      Array.from({ length: m }, (_, k) => (j === k ? 0 : 1 / (m - 1))),
    ),
  };
}

/**
 * Two checks of one family (h0, h1), one check alone (h2), and their family test (h3), with half of each
 * grouped check's share given to the family test: shares 1/6, 1/6, 1/3 and 1/3; a rejected check passes
 * its share to the others in proportion to those shares, the family test to its two checks.
 */
function familyGraph(): TestGraph {
  const shares = [1 / 6, 1 / 6, 1 / 3, 1 / 3];
  const proportional = (j: number) => shares.map((share, k) => (k === j ? 0 : share / (1 - shares[j]!)));
  return {
    weights: shares,
    transitions: [proportional(0), proportional(1), proportional(2), [0.5, 0.5, 0, 0]],
  };
}

describe("graphAdjust (Bretz, Maurer, Brannath & Posch 2009)", () => {
  it("is Holm on Holm's graph (statistics.md §8 reference values)", () => {
    const p = [0.0005, 0.004, 0.012, 0.02, 0.03, 0.2];
    const adjusted = graphAdjust(p, holmGraph(p.length));
    [0.003, 0.02, 0.048, 0.06, 0.06, 0.2].forEach((value, i) => {
      expect(adjusted[i]).toBeCloseTo(value, 12);
    });
  });

  it("is Holm on Holm's graph for any p-values", () => {
    const random = mulberry32(7);
    for (let trial = 0; trial < 200; trial++) {
      const m = 1 + Math.floor(random() * 12);
      const p = Array.from({ length: m }, () => random() ** 3);
      const graph = graphAdjust(p, holmGraph(m));
      holmAdjust(p).forEach((value, i) => {
        expect(graph[i]).toBeCloseTo(value, 12);
      });
    }
  });

  it("the fixed sequence: the second hypothesis is tested only after the first is rejected", () => {
    const sequence: TestGraph = {
      weights: [1, 0],
      transitions: [
        [0, 1],
        [0, 0],
      ],
    };
    expect(graphAdjust([0.01, 0.04], sequence)).toEqual([0.01, 0.04]);
    // The second inherits the first's adjusted p as a floor: it cannot be rejected before it.
    expect(graphAdjust([0.06, 0.001], sequence)).toEqual([0.06, 0.06]);
  });

  it("passes a rejected family test's share to its checks (by hand)", () => {
    // p/w: 0.02·6 = 0.12, 0.03·6 = 0.18, 0.5·3 = 1.5, 0.001·3 = 0.003 → the family test first (0.003);
    // its 1/3 goes half to each check (1/6 + 1/6 = 1/3 each), the edges rewired (h0 → h1: (0.2 + 0.4·0.5)
    // / (1 − 0.4·0.5) = 0.5, h0 → h2: 0.4 / 0.8 = 0.5). Then h0: 0.02·3 = 0.06; h1 gets 1/3·0.5 →
    // weight 1/2: 0.03·2 = 0.06; h2 gets the rest, weight 1: 0.5.
    const adjusted = graphAdjust([0.02, 0.03, 0.5, 0.001], familyGraph());
    [0.06, 0.06, 0.5, 0.003].forEach((value, i) => {
      expect(adjusted[i]).toBeCloseTo(value, 12);
    });
  });

  it("rejects the family test where no check is rejected on its own", () => {
    // Holm over the three checks: 3·0.03 = 0.09, 2·0.04 = 0.08 → 0.09, 0.5: nothing at α = 0.05. The
    // family test, 0.004 at share 1/3: 0.012, rejected; after it the checks face 1/3 each: 0.09, 0.09, 0.5.
    const checks = [0.03, 0.04, 0.5];
    const holm = holmAdjust(checks);
    expect(holm.every((p) => p > 0.05)).toBe(true);
    const adjusted = graphAdjust([...checks, 0.004], familyGraph());
    [0.09, 0.09, 0.5, 0.012].forEach((value, i) => {
      expect(adjusted[i]).toBeCloseTo(value, 12);
    });
    expect(adjusted[3]).toBeLessThanOrEqual(0.05);
  });

  it("gives an adjusted p of 1 to a hypothesis with no share and no edge into it", () => {
    expect(
      graphAdjust([0.001, 0.001], {
        weights: [1, 0],
        transitions: [
          [0, 0],
          [0, 0],
        ],
      }),
    ).toEqual([0.001, 1]);
  });

  it("refuses a graph that does not match the p-values", () => {
    expect(() => graphAdjust([0.1, 0.2], holmGraph(3))).toThrow(/2 p-values, 3 weights/);
  });
});
