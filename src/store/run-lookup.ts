/**
 * Finding a run by what the app itself knows of it when it never learns the trace id: the session
 * id its spans carried (OpenInference `session.id`, GenAI `gen_ai.conversation.id`, the AI SDK's
 * `metadata.sessionId`, a VoltAgent run's `conversation.id`) or the AI SDK `functionId` its run began with, both kept in the trace's
 * metadata by the importers. The latest run changed that matches wins.
 */
import type { Db } from './database.js';
import { jsonPathText } from './dialect-sql.js';

/** What a run may be looked up by: a metadata key of its trace. */
export type RunKey = 'session' | 'functionId';

/** The run id of the latest run whose trace's `metadata[key]` is `value`, if any. */
export async function latestRunBy(db: Db, key: RunKey, value: string): Promise<string | undefined> {
  const row = await db.queries
    .selectFrom('runs')
    .innerJoin('traces', 'traces.id', 'runs.trace_id')
    .select('runs.run_id')
    .where(jsonPathText(db.dialect, 'traces.trace_json', ['metadata', key]), '=', value)
    .orderBy('runs.updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.run_id;
}
