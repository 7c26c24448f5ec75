/** The page's view of the HTTP API: typed fetches that turn `{error}` answers into exceptions. */

export interface Step {
  index: number;
  agent: string;
  speaker: string;
  role: 'agent' | 'tool' | 'human' | 'system';
  content: string;
}

export interface Trace {
  id: string;
  format: string;
  question?: string;
  groundTruth?: string;
  steps: Step[];
  agents: { name: string; role: string; steps: number }[];
  labels?: { agent?: string; step?: number; reason?: string };
}

export interface Attribution {
  agent: string | null;
  step: number | null;
  reason: string;
  method: string;
  model?: string;
  confidence?: number;
  agentConfidence?: number;
  candidates?: { step: number; agent: string; score: number }[];
  usage: { calls: number; inputTokens: number; outputTokens: number; costUsd?: number };
  unparsed?: boolean;
  warnings?: string[];
}

export interface Analysis {
  id: string;
  traceId: string;
  traceName?: string;
  method: string;
  model: string | null;
  result: Attribution;
  milliseconds: number;
  createdAt: string;
}

async function call<Result>(path: string, init?: RequestInit): Promise<Result> {
  const response = await fetch(path, { credentials: 'same-origin', ...init });
  const body = (await response.json().catch(() => ({}))) as Result & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

export const api = {
  methods: () => call<{ methods: { name: string; description: string }[] }>('/api/methods'),
  upload: (text: string | Blob, name: string) =>
    call<{ traces: { id: string; name: string; steps: number }[] }>(
      `/api/traces?name=${encodeURIComponent(name)}`,
      { method: 'POST', body: text },
    ),
  trace: (id: string) => call<{ trace: Trace }>(`/api/traces/${encodeURIComponent(id)}`),
  analyse: (
    traceId: string,
    request: { method: string; model?: string; useGroundTruth: boolean },
  ) =>
    call<{ analysis: Analysis }>(`/api/traces/${encodeURIComponent(traceId)}/analyses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    }),
  analyses: () => call<{ analyses: Analysis[] }>('/api/analyses'),
  evaluations: () =>
    call<{ evaluations: { id: string; title: string; traces: number; createdAt: string }[] }>(
      '/api/evaluations',
    ),
  evaluation: (id: string) =>
    call<{ evaluation: { title: string; summary: EvaluationSummary } }>(
      `/api/evaluations/${encodeURIComponent(id)}`,
    ),
};

export interface Estimate {
  value: number;
  low: number;
  high: number;
  n: number;
}

export interface EvaluationSummary {
  rows: {
    method: string;
    useGroundTruth?: boolean;
    subset: string;
    baseline: boolean;
    traces: number;
    accuracy: {
      agent: Estimate;
      step: Estimate;
      stepWithin1: Estimate;
      stepWithin3: Estimate;
      stepLenient: Estimate;
    };
    costUsd: number;
  }[];
}
