/**
 * The passing runs that runs name as their reference (`Trace.reference`, the clean run of an
 * injected run's task), found among the runs an evaluation read: what `diverge` compares with.
 */
import type { Trace } from '../trace/model.js';

/**
 * Each run's reference run, for the runs whose `reference` names another run read with them; a
 * failed run is never a reference, and where several runs share the id the first passing one is.
 */
export function resolveReferences(traces: readonly Trace[]): Map<Trace, Trace> {
  const byId = new Map<string, Trace>();
  for (const trace of traces) {
    if (trace.outcome === 'failure') continue;
    const known = byId.get(trace.id);
    if (!known || (known.outcome !== 'success' && trace.outcome === 'success'))
      byId.set(trace.id, trace);
  }
  const references = new Map<Trace, Trace>();
  for (const trace of traces) {
    const reference = trace.reference === undefined ? undefined : byId.get(trace.reference);
    if (reference && reference !== trace) references.set(trace, reference);
  }
  return references;
}
