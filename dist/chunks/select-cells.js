import { I as InputError } from './version.js';

/** The cells named (`--cells`, the action's `cells` input), in the order named; all of them when none is. */
function selectCells(config, names) {
    if (!names || names.length === 0)
        return config.cells;
    const known = config.cells.map((cell) => cell.name);
    return names.map((name) => {
        const cell = config.cells.find((candidate) => candidate.name === name);
        if (!cell)
            throw new InputError(`--cells: no cell named "${name}"; the config has: ${known.join(", ")}`);
        return cell;
    });
}

export { selectCells as s };
