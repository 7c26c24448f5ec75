/**
 * The other runs of each labelled run's task among the runs an evaluation read, for methods that
 * compare many runs of one task (`spectrum`). The layout (docs/EVAL.md): one folder per task,
 * holding the failed run under study (the one carrying labels) and its repeats, each with its
 * outcome (`ROOT/TASK/*.json`). Within a folder, runs whose task text matches the labelled run's
 * are its siblings; when none matches (repeats written without the question), the whole folder is,
 * unless the folder holds labelled runs of several tasks (a flat data set such as Who&When's
 * folders is not a task folder).
 */
import { dirname } from 'node:path';
import { isLabelled } from '../attribution/offline/features/inputs.js';
import type { Trace } from '../trace/model.js';
import { taskOf } from '../trace/task.js';

/** Each labelled run's siblings (never itself), for the labelled runs that have any. */
export function resolveSiblings(traces: readonly Trace[]): Map<Trace, Trace[]> {
  const byFolder = new Map<string, Trace[]>();
  for (const trace of traces) {
    const folder = trace.source === undefined ? '' : dirname(trace.source);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), trace]);
  }
  const siblings = new Map<Trace, Trace[]>();
  for (const group of byFolder.values()) {
    const labelled = group.filter(isLabelled);
    if (labelled.length === 0) continue;
    const tasks = new Map(group.map((trace) => [trace, taskOf(trace)]));
    const labelledTasks = new Set(labelled.map((trace) => tasks.get(trace)));
    for (const trace of labelled) {
      const task = tasks.get(trace);
      const others = group.filter((other) => other !== trace);
      const sameTask =
        task === undefined ? [] : others.filter((other) => tasks.get(other) === task);
      const found = sameTask.length > 0 ? sameTask : labelledTasks.size > 1 ? [] : others;
      if (found.length > 0) siblings.set(trace, found);
    }
  }
  return siblings;
}
