/**
 * The page's view of the HTTP API: typed fetches that turn `{error}` answers into exceptions. The
 * types are the server's own (src/server/api-types.ts), shared at build time only.
 */
import type {
  AnalysesResponse,
  AnalysisResponse,
  BlameResponse,
  DiffResponse,
  ErrorResponse,
  EvaluationResponse,
  EvaluationSortKey,
  EvaluationsResponse,
  ExamplesResponse,
  MethodsResponse,
  RunsResponse,
  TaskResponse,
  TasksResponse,
  TraceResponse,
  TracesResponse,
  UploadResponse,
} from '../../src/server/api-types.js';

export type {
  AgentBlame,
  BlameResponse,
  RunRecord,
  RunsResponse,
  TaskResponse,
  TaskRun,
  TaskSpectrum,
  TaskSummary,
  TasksResponse,
  AlignedPair,
  Analysis,
  DiffResponse,
  EvaluationResponse,
  EvaluationSortKey,
  EvaluationsResponse,
  PageInfo,
  TracesResponse,
  Attribution,
  Estimate,
  EvaluationSummary,
  EvaluationTraceRow,
  Example,
  HistoryRow,
  LabelMatch,
  Step,
  SummaryRow,
  ToolCall,
  Trace,
} from '../../src/server/api-types.js';

/** A query string from the parameters that are set. */
function query(parameters: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined && value !== '' && value !== false) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function call<Result>(path: string, init?: RequestInit): Promise<Result> {
  const response = await fetch(path, { credentials: 'same-origin', ...init });
  const body = (await response.json().catch(() => ({}))) as Result & Partial<ErrorResponse>;
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

export const api = {
  methods: () => call<MethodsResponse>('/api/methods'),
  upload: (text: string | Blob, name: string, format = '') =>
    call<UploadResponse>(
      `/api/traces?name=${encodeURIComponent(name)}${format ? `&format=${encodeURIComponent(format)}` : ''}`,
      // Any file, JSON or not (an AG2 logs.db, a .gz): sent as bytes, which no other site's page
      // can send here without the server's consent.
      { method: 'POST', body: text, headers: { 'content-type': 'application/octet-stream' } },
    ),
  trace: (id: string) => call<TraceResponse>(`/api/traces/${encodeURIComponent(id)}`),
  history: (page: { q?: string; offset?: number; limit?: number } = {}) =>
    call<TracesResponse>(`/api/traces${query(page)}`),
  remove: (id: string) =>
    call<{ deleted: boolean }>(`/api/traces/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  setLabel: (id: string, label: { agent: string; step: number } | null) =>
    call<TraceResponse>(`/api/traces/${encodeURIComponent(id)}/label`, {
      method: label ? 'PUT' : 'DELETE',
      headers: { 'content-type': 'application/json' },
      ...(label ? { body: JSON.stringify(label) } : {}),
    }),
  analysis: (id: string) => call<AnalysisResponse>(`/api/analyses/${encodeURIComponent(id)}`),
  analysesOf: (traceId: string) =>
    call<AnalysesResponse>(`/api/analyses${query({ trace: traceId, limit: 500 })}`),
  examples: () => call<ExamplesResponse>('/api/examples'),
  runs: (page: { offset?: number; limit?: number } = {}) =>
    call<RunsResponse>(`/api/runs${query(page)}`),
  blame: () => call<BlameResponse>('/api/runs/blame'),
  tasks: (page: { offset?: number; limit?: number } = {}) =>
    call<TasksResponse>(`/api/tasks${query(page)}`),
  task: (task: string, failed?: string) =>
    call<TaskResponse>(`/api/tasks/${encodeURIComponent(task)}${query({ failed })}`),
  diff: (failed: string, passed: string) =>
    call<DiffResponse>(`/api/diff${query({ failed, passed })}`),
  loadExample: (name: string) =>
    call<UploadResponse>(`/api/examples/${encodeURIComponent(name)}`, { method: 'POST' }),
  analyse: (
    traceId: string,
    request: { method: string; model?: string; useGroundTruth: boolean },
  ) =>
    call<AnalysisResponse>(`/api/traces/${encodeURIComponent(traceId)}/analyses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    }),
  evaluations: (page: { offset?: number; limit?: number } = {}) =>
    call<EvaluationsResponse>(`/api/evaluations${query(page)}`),
  evaluation: (
    id: string,
    rows: {
      offset?: number;
      limit?: number;
      wrong?: boolean;
      sort?: EvaluationSortKey;
      order?: 'asc' | 'desc';
    } = {},
  ) => call<EvaluationResponse>(`/api/evaluations/${encodeURIComponent(id)}${query(rows)}`),
  openRecord: (evaluationId: string, index: number) =>
    call<AnalysisResponse>(
      `/api/evaluations/${encodeURIComponent(evaluationId)}/records/${index}/open`,
      { method: 'POST' },
    ),
};
