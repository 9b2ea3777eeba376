import { m as metricSpecs, d as describeMetric } from './metric-names.js';
import { L as formatDetectable } from './secrets.js';

/** The terminal summary of a calibration file: per gated check its spread, drift, catch and A/A blocks. */
function renderCalibration(file) {
    const pct = (value) => `${(value * 100).toFixed(1)}%`;
    const lines = [
        `A/A calibration: ${file.runsPerSide} runs per side, gate α ${Number(file.gate.alpha.toPrecision(3))}, tolerance ${pct(file.gate.tolerance)}`,
    ];
    for (const cell of file.cells) {
        lines.push(`${cell.cell}:`);
        for (const m of cell.metrics.filter((metric) => metric.gated)) {
            const drift = m.drift
                ? `drift ${pct(m.drift.sd)} over ${m.drift.sessions} sessions`
                : "drift n/a (no history)";
            const higherIsBetter = metricSpecs[m.metric]?.higherIsBetter ?? false;
            const catches = m.detectableChange === null
                ? "catches n/a"
                : `catches ≥ ${formatDetectable({ detectableChange: m.detectableChange, higherIsBetter })} at 90% power`;
            lines.push(`  ${describeMetric(m.metric)}: run spread ${pct(m.runSpread)} (df ${m.df}), ${drift}, ${catches}, A/A blocked ${m.aaBlocks}/${m.aaSplits}`);
        }
    }
    const rate = file.overall.falseBlockRate;
    lines.push(`Overall: the gate blocked ${file.overall.blocked} of ${file.overall.aaSplits} A/A splits (false-block rate ${rate === null ? "n/a" : pct(rate)}; the splits share runs, see docs/calibration.md)`);
    return `${lines.join("\n")}\n`;
}

export { renderCalibration as r };
