import { bencherExport } from "./export-bencher.js";
import { pytorchExport } from "./export-pytorch.js";
import type { ExportFormat } from "./export-runs.js";

/**
 * The dashboard export formats, one module each, registered here once: compare's and run's `--format`
 * accept these names, and each writes its module's file. A new format is its module (an `ExportFormat`)
 * and its line here.
 */
export const exportFormats = {
  pytorch: pytorchExport,
  bencher: bencherExport,
} as const satisfies Record<string, ExportFormat>;

/** The name of a dashboard export format, as `--format` takes it. */
export type CompareExport = keyof typeof exportFormats;

/** Every export format's name, in the order of the registry. */
export const exportFormatNames = Object.keys(exportFormats) as [CompareExport, ...CompareExport[]];

export function isExportFormat(name: string): name is CompareExport {
  return Object.hasOwn(exportFormats, name);
}
