/**
 * The one seeded random module: every random number in the tool and its tests comes from here, so the
 * same seed gives the same numbers on any machine (pure 32-bit integer math). Three generators, each
 * kept because fixed sequences depend on it: `mulberry32` (test fixtures, Monte-Carlo benches),
 * `seededRandom` (the simulator's engine, mulberry32 underneath) and `createRng` (sfc32, workloads
 * and arrival schedules); one Box-Muller transform (`boxMuller`) serves every normal draw.
 */
/** mulberry32: a small, fast, seeded 32-bit generator, uniform in [0, 1). */
function mulberry32(seed) {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
/**
 * Box-Muller: a standard normal from two uniforms, u in (0, 1] (the caller keeps it off zero, each in
 * its own way, since fixed sequences depend on it) and v in [0, 1). `sine` gives the pair's second draw.
 */
function boxMuller(u, v, sine = false) {
    const radius = Math.sqrt(-2 * Math.log(u));
    return radius * (sine ? Math.sin(2 * Math.PI * v) : Math.cos(2 * Math.PI * v));
}
function seededRandom(seed) {
    const next = mulberry32(Math.floor(seed) ^ 0x9e3779b9);
    const normal = () => {
        // 1 - next() keeps the log argument away from zero.
        const u = 1 - next();
        const v = next();
        return boxMuller(u, v);
    };
    return { next, normal };
}
/** Mixes two numbers into a 32-bit seed, for per-request streams derived from the server seed. */
function mixSeed(a, b) {
    let h = Math.imul((a >>> 0) ^ 0x85ebca6b, 0xc2b2ae35);
    h = Math.imul(h ^ (b >>> 0) ^ (h >>> 13), 0x27d4eb2f);
    return (h ^ (h >>> 16)) >>> 0;
}
function mix32(value) {
    let z = (value + 0x9e3779b9) | 0;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
}
function hashString(text) {
    let hash = 0x811c9dc5;
    for (let index = 0; index < text.length; index++) {
        hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
    }
    return hash >>> 0;
}
/**
 * sfc32 for workloads: small, fast, and good enough for picking words and gaps. Streams are derived from
 * (seed, purpose, index) so request i gets the same prompt whether a run asks for 10 requests or 10,000.
 */
function createRng(seed, ...streams) {
    let a = mix32(seed >>> 0);
    let b = mix32(a ^ 0x6a09e667);
    let c = mix32(b ^ 0xbb67ae85);
    let d = 1;
    for (const stream of streams) {
        const h = typeof stream === "number"
            ? mix32(stream >>> 0) ^ mix32(Math.floor(stream / 2 ** 32))
            : hashString(stream);
        a = mix32(a ^ h);
        b = mix32(b + h);
        c = mix32(c ^ Math.imul(h, 3));
    }
    const nextUint = () => {
        const t = (((a + b) | 0) + d) | 0;
        d = (d + 1) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = (c << 21) | (c >>> 11);
        c = (c + t) | 0;
        return t >>> 0;
    };
    for (let warm = 0; warm < 12; warm++)
        nextUint();
    const next = () => nextUint() / 4294967296;
    let spareNormal;
    const normal = () => {
        if (spareNormal !== undefined) {
            const value = spareNormal;
            spareNormal = undefined;
            return value;
        }
        let u = 0;
        while (u === 0)
            u = next();
        const v = next();
        spareNormal = boxMuller(u, v, true);
        return boxMuller(u, v);
    };
    const gamma = (shape, scale) => {
        if (shape < 1) {
            // Boost: Gamma(k) = Gamma(k + 1) * U^(1/k).
            let u = 0;
            while (u === 0)
                u = next();
            return gamma(shape + 1, scale) * u ** (1 / shape);
        }
        const dd = shape - 1 / 3;
        const cc = 1 / Math.sqrt(9 * dd);
        for (;;) {
            let x;
            let v;
            do {
                x = normal();
                v = 1 + cc * x;
            } while (v <= 0);
            v = v * v * v;
            const u = next();
            if (u < 1 - 0.0331 * x * x * x * x)
                return dd * v * scale;
            if (Math.log(u) < 0.5 * x * x + dd * (1 - v + Math.log(v)))
                return dd * v * scale;
        }
    };
    return {
        next,
        int: (min, max) => min + Math.floor(next() * (max - min + 1)),
        normal,
        gamma,
    };
}

export { mulberry32 as a, boxMuller as b, createRng as c, mixSeed as m, seededRandom as s };
