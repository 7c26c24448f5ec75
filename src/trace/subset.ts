/**
 * The subset a trace belongs to, for stratified folds and per-subset reports: the importer's own
 * label when it has one (Who&When's Algorithm-Generated / Hand-Crafted), else the parent folder.
 */
import type { Trace } from './model.js';

/** Subset label of a trace. */
export function subsetOf(trace: Trace): string {
  const subset = trace.metadata.subset;
  if (typeof subset === 'string') return subset;
  const parts = (trace.source ?? '').split(/[\\/]/);
  return parts.length >= 2 ? parts[parts.length - 2]! : trace.format;
}
