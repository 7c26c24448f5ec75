/**
 * The few expressions SQLite and PostgreSQL spell differently, each in the database's own SQL:
 * finding text in text, reading a key of a JSON column, and changing a key of a stored JSON
 * document. Everything else the store asks is the same SQL on both and written with the builder.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './driver.js';

/** Any SQL expression (a column reference, a function call). */
type Text = RawBuilder<unknown> | ReturnType<typeof sql.ref>;

/** Whether `lower(text)` contains `needle` (already lower case): SQLite's instr, PostgreSQL's strpos. */
export function containsLower(dialect: Dialect, text: Text, needle: string): RawBuilder<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`strpos(lower(${text}), ${needle}) > 0`
    : sql<SqlBool>`instr(lower(${text}), ${needle}) > 0`;
}

/** The text of a top-level key of a JSON column (null when absent). */
export function jsonText(dialect: Dialect, column: string, key: string): RawBuilder<string | null> {
  if (!/^[A-Za-z_]\w*$/.test(key)) throw new Error(`not a plain JSON key: ${key}`);
  return dialect === 'postgres'
    ? sql<string | null>`(${sql.ref(column)}::jsonb ->> ${key})`
    : sql<string | null>`json_extract(${sql.ref(column)}, ${`$.${key}`})`;
}

/** The text at a path of plain keys in a JSON column (null when absent). */
export function jsonPathText(
  dialect: Dialect,
  column: string,
  path: readonly string[],
): RawBuilder<string | null> {
  if (!path.every((key) => /^[A-Za-z_]\w*$/.test(key)))
    throw new Error(`not a path of plain JSON keys: ${path.join('.')}`);
  return dialect === 'postgres'
    ? sql<string | null>`(${sql.ref(column)}::jsonb #>> ${`{${path.join(',')}}`})`
    : sql<string | null>`json_extract(${sql.ref(column)}, ${`$.${path.join('.')}`})`;
}

/**
 * Whether a JSON column's object has these top-level values: PostgreSQL's containment on jsonb,
 * SQLite's json_extract per key.
 */
export function jsonHas(
  dialect: Dialect,
  column: string,
  values: Record<string, string | number>,
): RawBuilder<SqlBool> {
  if (dialect === 'postgres')
    return sql<SqlBool>`${sql.ref(column)}::jsonb @> ${JSON.stringify(values)}::jsonb`;
  const each = Object.entries(values).map(
    ([key, value]) => sql`json_extract(${sql.ref(column)}, ${`$.${key}`}) = ${value}`,
  );
  return sql<SqlBool>`(${sql.join(each, sql` AND `)})`;
}

/** A stored trace's JSON with the person's label set as its labels (marked `byUser`). */
export function traceWithUserLabel(dialect: Dialect): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`jsonb_set(trace_json::jsonb, '{labels}', user_label_json::jsonb || '{"byUser": true}')::text`
    : sql<string>`json_set(trace_json, '$.labels', json_set(user_label_json, '$.byUser', json('true')))`;
}

/** A stored trace's JSON with its `outcome` replaced. */
export function traceWithOutcome(dialect: Dialect, outcome: string): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`jsonb_set(trace_json::jsonb, '{outcome}', to_jsonb(${outcome}::text))::text`
    : sql<string>`json_set(trace_json, '$.outcome', ${outcome})`;
}
