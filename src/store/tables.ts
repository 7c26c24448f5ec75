/**
 * The store's tables as the query builder (Kysely) sees them: one row type per table, the same on
 * SQLite and PostgreSQL, so that every query the store writes is checked against its columns and
 * its rows come back typed.
 */

/** A stored trace: the canonical trace as JSON, its content hash and the labels beside it. */
export interface TracesTable {
  id: string;
  content_hash: string;
  name: string;
  format: string;
  steps: number;
  trace_json: string;
  created_at: string;
  /** The label a person set on the page, as JSON (null: none). */
  user_label_json: string | null;
  /** The file's labels, as JSON (null: none). */
  labels_json: string | null;
}

/** A method's finished result on a stored trace. */
export interface AnalysesTable {
  id: string;
  trace_id: string;
  method: string;
  model: string | null;
  settings_json: string;
  result_json: string;
  usage_json: string;
  milliseconds: number;
  created_at: string;
}

/** An evaluation run stored by `faultline eval`. */
export interface EvaluationsTable {
  id: string;
  title: string;
  /** The methods, as a JSON array. */
  methods: string;
  traces: number;
  summary_json: string;
  created_at: string;
}

/** A run recorded by `faultline proxy` or received as spans, stored as one trace. */
export interface RunsTable {
  run_id: string;
  trace_id: string;
  file: string | null;
  outcome: string;
  /** The run's task (src/trace/task.ts); null for runs stored before tasks were kept. */
  task: string | null;
  created_at: string;
  updated_at: string;
}

/** Every table the store's queries read and write. */
export interface StoreTables {
  traces: TracesTable;
  analyses: AnalysesTable;
  evaluations: EvaluationsTable;
  runs: RunsTable;
}
