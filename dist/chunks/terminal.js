import { d as describeMetric } from './metric-names.js';
import { D as blocksToTerminal, E as firstScreenBlocks, F as cleanForTerminal, G as withoutMachinePaths, H as terminalMarkup } from './compare.js';
import { l as formatChange, n as formatInterval } from './format.js';

/**
 * The `compare` summary for a terminal (and the demo's): the same first screen as the PR comment, then
 * each gated check's decision interval against its tolerance as a bar, the mode and the warnings. Colour
 * on a TTY, plain text otherwise (logs, CI).
 */
const metricStyle = {
    regression: "bad",
    improvement: "good",
    "within-tolerance": "plain",
    inconclusive: "open",
};
function renderTerminal(verdict, { color }) {
    const markup = terminalMarkup(color);
    const dim = (text) => (color ? `\u001b[2m${text}\u001b[0m` : text);
    const lines = [
        blocksToTerminal(firstScreenBlocks(verdict, { links: null, override: null, form: "terminal" }, markup), markup),
    ];
    const bars = intervalBars(verdict, { unicode: color });
    if (bars.length > 0) {
        lines.push("", dim(bars[0]));
        verdict.comparisons
            .filter((c) => c.gated && c.ci !== null)
            .forEach((c, i) => {
            lines.push(markup.tone(metricStyle[c.verdict], bars[i + 1]));
        });
    }
    lines.push("", `mode: ${verdict.mode}; runs used: ${verdict.runs.used.length}; excluded: ${verdict.runs.excluded.length}; condition differences: ${verdict.fingerprints.differences.length}`);
    for (const warning of verdict.warnings)
        lines.push(markup.tone("open", `warning: ${cleanForTerminal(withoutMachinePaths(warning))}`));
    return `${lines.join("\n")}\n`;
}
/** Characters of one interval bar. */
const intervalBarWidth = 41;
/**
 * The terminal's picture of the decision: per gated check with an interval, one line with the interval
 * as worsening (right is worse, for throughputs too) on a scale shared by all lines, the tolerance
 * edges and the point estimate. Plain ASCII unless `unicode` (a TTY). The first line is the legend.
 */
function intervalBars(verdict, { unicode }) {
    const checks = verdict.comparisons.filter((c) => c.gated && c.ci !== null);
    if (checks.length === 0)
        return [];
    const worse = (c, ratio) => (c.higherIsBetter ? 1 / ratio : ratio) - 1;
    const glyph = unicode
        ? { back: "·", zero: "┊", edge: "┃", fill: "━", point: "●", left: "◀", right: "▶" }
        : { back: "-", zero: ":", edge: "|", fill: "=", point: "#", left: "<", right: ">" };
    const maxTolerance = Math.max(...checks.map((c) => c.tolerance));
    const reach = Math.max(2 * maxTolerance, ...checks.flatMap((c) => c.ci.map((end) => Math.abs(worse(c, end)))));
    const range = Math.min(reach, 5 * maxTolerance);
    const half = (intervalBarWidth - 1) / 2;
    const column = (value) => Math.round(half + (Math.max(-range, Math.min(range, value)) / range) * half);
    const labels = checks.map((c) => `${cleanForTerminal(c.cell)} ${describeMetric(c.metric)}`);
    const labelWidth = Math.max(...labels.map((l) => l.length));
    const scale = `${formatChange(1 - range)}`.padEnd(half) + "0".padEnd(half) + formatChange(1 + range);
    const lines = [
        `${"decision interval vs tolerance".padEnd(labelWidth)}  ${scale.slice(0, intervalBarWidth + 8)}  (right is worse; ${glyph.edge} tolerance, ${glyph.point} estimate)`,
    ];
    checks.forEach((c, i) => {
        const chars = Array.from({ length: intervalBarWidth }, () => glyph.back);
        chars[column(0)] = glyph.zero;
        const ends = c.ci.map((end) => worse(c, end)).sort((a, b) => a - b);
        const [from, to] = [column(ends[0]), column(ends[1])];
        for (let k = from; k <= to; k++)
            chars[k] = glyph.fill;
        // The band is symmetric on the log scale: ratio 1 + δ on the worse side, 1 / (1 + δ) on the better.
        chars[column(1 / (1 + c.tolerance) - 1)] = glyph.edge;
        chars[column(c.tolerance)] = glyph.edge;
        if (c.ratio !== null)
            chars[column(worse(c, c.ratio))] = glyph.point;
        if (ends[0] < -range)
            chars[0] = glyph.left;
        if (ends[1] > range)
            chars[intervalBarWidth - 1] = glyph.right;
        lines.push(`${labels[i].padEnd(labelWidth)}  ${chars.join("")}  ${formatInterval(c.ci)}`);
    });
    return lines;
}

export { renderTerminal as r };
