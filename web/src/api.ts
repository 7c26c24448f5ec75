/**
 * The page's view of the HTTP API: typed fetches that turn `{error}` answers into exceptions. The
 * types are the server's own (src/server/api-types.ts), shared at build time only.
 */
import type {
  AnalysesResponse,
  AnalysisResponse,
  ErrorResponse,
  EvaluationResponse,
  EvaluationsResponse,
  ExamplesResponse,
  MethodsResponse,
  TraceResponse,
  TracesResponse,
  UploadResponse,
} from '../../src/server/api-types.js';

export type {
  Analysis,
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
      {
        method: 'POST',
        body: text,
      },
    ),
  trace: (id: string) => call<TraceResponse>(`/api/traces/${encodeURIComponent(id)}`),
  history: () => call<TracesResponse>('/api/traces'),
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
    call<AnalysesResponse>(`/api/analyses?trace=${encodeURIComponent(traceId)}`),
  examples: () => call<ExamplesResponse>('/api/examples'),
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
  analyses: () => call<AnalysesResponse>('/api/analyses'),
  evaluations: () => call<EvaluationsResponse>('/api/evaluations'),
  evaluation: (id: string) =>
    call<EvaluationResponse>(`/api/evaluations/${encodeURIComponent(id)}`),
  openRecord: (evaluationId: string, index: number) =>
    call<AnalysisResponse>(
      `/api/evaluations/${encodeURIComponent(evaluationId)}/records/${index}/open`,
      { method: 'POST' },
    ),
};
