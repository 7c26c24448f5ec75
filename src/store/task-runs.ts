/**
 * The runs of one task in the store (`runs.task`, set when a run is saved: its declared task, else
 * its task text's fingerprint, src/trace/task.ts), for `faultline spectrum --task` on stored runs.
 */
import type { Trace } from '../trace/model.js';
import type { Db } from './driver.js';

/** The traces of the runs of one task, oldest first. */
export async function tracesOfTask(db: Db, task: string): Promise<Trace[]> {
  const rows = await db.queries
    .selectFrom('runs')
    .innerJoin('traces', 'traces.id', 'runs.trace_id')
    .select(['traces.trace_json'])
    .where('runs.task', '=', task)
    .orderBy('runs.created_at')
    .orderBy('runs.run_id')
    .execute();
  return rows.map((row) => JSON.parse(row.trace_json) as Trace);
}
