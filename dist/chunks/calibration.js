import { m as metricSpecs, d as describeMetric } from './metric-names.js';
import { ac as formatDetectable } from './interleaved.js';
import { c as renderCalibrationHistoryLine } from './history.js';

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
/**
 * The calibrate mode's report (`report.md` and the job summary): the terminal summary in a code block,
 * the line on main's history (`history` null: the history input is off) and where calibration.json is.
 */
function renderCalibrationReport(file, history) {
    return [
        "### vllm-perf-gate: A/A calibration of this runner",
        "",
        "```",
        `${renderCalibration(file)}\`\`\``,
        "",
        renderCalibrationHistoryLine(history),
        "",
        "The file is `calibration.json` in the evidence artifact; give it to the gate with the `calibration` input (docs/calibration.md).",
        "",
    ].join("\n");
}

export { renderCalibration as a, renderCalibrationReport as r };
