/**
 * The History table's query: stored traces, newest first, each with its latest analysis, filtered
 * by a text and paged, with how many match in all. The count and the page are two statements sent
 * at once (on PostgreSQL, on two connections).
 */
import { sql } from 'kysely';
import type { Attribution } from '../attribution/method.js';
import type { TraceLabels } from '../trace/model.js';
import { containsLower, jsonText } from './dialect-sql.js';
import type { Db } from './driver.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import type { HistoryEntry, UserLabel } from './records.js';

/** A person's mark wins over the file's labels; undefined when there is neither. */
export function labelOf(
  fileLabels: TraceLabels | undefined,
  userLabel: string | null,
): TraceLabels | undefined {
  if (userLabel) return { ...(JSON.parse(userLabel) as UserLabel), byUser: true };
  return fileLabels;
}

/** The file's labels as stored beside the trace (null when there are none). */
export const fileLabelsOf = (json: string | null) =>
  json ? ((JSON.parse(json) as TraceLabels | null) ?? undefined) : undefined;

/**
 * One page of the History table. `query` keeps the rows whose name, format, latest method, model
 * or blamed agent, or label contains it (any case).
 */
export async function listHistory(
  { dialect, queries }: Db,
  page: Page & { query?: string } = {},
): Promise<Paged<HistoryEntry>> {
  const { limit, offset } = pageBounds(page);
  const needle = page.query?.trim().toLowerCase();
  const from = queries
    .selectFrom('traces')
    .leftJoin('analyses as latest', (join) =>
      join.on((builder) =>
        builder(
          'latest.id',
          '=',
          builder
            .selectFrom('analyses as newest')
            .select('newest.id')
            .whereRef('newest.trace_id', '=', 'traces.id')
            .orderBy('newest.created_at', 'desc')
            .limit(1),
        ),
      ),
    )
    .$if(Boolean(needle), (query) =>
      query.where((builder) =>
        builder.or(
          [
            sql.ref('traces.name'),
            sql.ref('traces.format'),
            sql`coalesce(latest.method, '')`,
            sql`coalesce(latest.model, '')`,
            sql`coalesce(${jsonText(dialect, 'latest.result_json', 'agent')}, '')`,
            sql`coalesce(traces.user_label_json, traces.labels_json, '')`,
          ].map((text) => containsLower(dialect, text, needle!)),
        ),
      ),
    );
  const [counted, rows] = await Promise.all([
    from.select((builder) => builder.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    from
      .select([
        'traces.id',
        'traces.name',
        'traces.format',
        'traces.steps',
        'traces.created_at',
        'traces.user_label_json',
        'traces.labels_json',
        'latest.id as analysis_id',
        'latest.method',
        'latest.model',
        'latest.result_json',
      ])
      .orderBy('traces.created_at', 'desc')
      .orderBy('traces.id')
      .limit(limit)
      .offset(offset)
      .execute(),
  ]);
  const items = rows.map((row): HistoryEntry => {
    const result = row.result_json ? (JSON.parse(row.result_json) as Attribution) : null;
    return {
      id: row.id,
      name: row.name,
      format: row.format,
      steps: row.steps,
      createdAt: row.created_at,
      label: labelOf(fileLabelsOf(row.labels_json), row.user_label_json) ?? null,
      latest:
        row.analysis_id && result
          ? {
              id: row.analysis_id,
              method: row.method ?? result.method,
              model: row.model,
              agent: result.agent,
              step: result.step,
            }
          : null,
    };
  });
  return { items, total: Number(counted.total), limit, offset };
}
