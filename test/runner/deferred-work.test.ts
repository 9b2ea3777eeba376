import { describe, expect, it } from "vitest";
import { DeferredWork } from "../../src/runner/deferred-work.js";

describe("DeferredWork", () => {
  it("runs work after the current turn, in order, and settles once all of it ran", async () => {
    const work = new DeferredWork();
    const done: string[] = [];
    work.later(() => done.push("a"));
    work.later(() => done.push("b"));
    done.push("now");
    await work.settled();
    expect(done).toEqual(["now", "a", "b"]);
  });

  it("settles at once when nothing is pending", async () => {
    await expect(new DeferredWork().settled()).resolves.toBeUndefined();
  });

  it("still runs the rest when one piece throws, then reports the first error", async () => {
    const work = new DeferredWork();
    const done: string[] = [];
    work.later(() => {
      throw new Error("disk full");
    });
    work.later(() => done.push("b"));
    await expect(work.settled()).rejects.toThrow("disk full");
    expect(done).toEqual(["b"]);
  });
});

describe("DeferredWork slices", () => {
  it("lets other callbacks run between slices", async () => {
    const work = new DeferredWork(0);
    const order: string[] = [];
    work.later(() => order.push("w1"));
    work.later(() => order.push("w2"));
    // Queued after the first slice was scheduled: with zero-length slices it runs between w1 and w2.
    setImmediate(() => order.push("io"));
    await work.settled();
    expect(order).toEqual(["w1", "io", "w2"]);
  });
});
