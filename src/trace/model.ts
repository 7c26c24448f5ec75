/**
 * The canonical trace model. Every importer produces these types and every method reads only
 * these types, so a new input format never touches attribution, evaluation or the CLI.
 */

/** What kind of participant produced a step. */
export type StepRole = 'agent' | 'tool' | 'human' | 'system';

/** A tool or function call made in a step. `arguments` is kept as text, as providers send it. */
export interface ToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** The result of a tool call, reported in a step. */
export interface ToolResult {
  id?: string;
  name?: string;
  content: string;
  isError?: boolean;
}

/** One entry of the execution log. */
export interface Step {
  /** 0-based position in the trace; equals Who&When's `mistake_step` index into `history`. */
  index: number;
  /** Canonical agent name, e.g. `Orchestrator` for `Orchestrator (-> WebSurfer)`. */
  agent: string;
  /** The speaker exactly as written in the source. */
  speaker: string;
  role: StepRole;
  /** The text of the step; tool calls and results are also kept structured below. */
  content: string;
  toolCalls?: ToolCall[];
  toolResults?: ToolResult[];
  /** ISO 8601 time when the source has one. */
  timestamp?: string;
  /** An error the source itself recorded for this step (span status, tool failure). */
  error?: string;
  /** The span the step came from, for tracing formats: to map a result back to the user's tool. */
  span?: SpanInfo;
  /** How sure the model was of the step's tokens, where the source logged log probabilities. */
  logprobs?: StepLogprobs;
}

/**
 * A step's token log probabilities, summarised (src/trace/logprobs.ts): a sudden drop often marks
 * where a run went wrong. Natural logarithms, as providers give them; 0 is certainty.
 */
export interface StepLogprobs {
  /** Mean log probability over the step's tokens. */
  mean: number;
  /** The least likely token's log probability. */
  min: number;
  /** Number of tokens the summary covers. */
  tokens: number;
  /** The least likely tokens, least likely first (at most five); `position` counts from 0. */
  lowest: { token: string; logprob: number; position: number }[];
}

/** What a tracing source recorded about a step's span. */
export interface SpanInfo {
  /** The source's span (or observation, run) id. */
  id: string;
  /** The enclosing span's id. */
  parentId?: string;
  durationMs?: number;
  /** The model that produced the step, when a model call did. */
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
}

/** One participant of the run, as the steps name it. */
export interface AgentInfo {
  name: string;
  role: StepRole;
  /** Number of steps it produced. */
  steps: number;
}

/** Human labels carried by annotated traces (Who&When). */
export interface TraceLabels {
  /** Failure-responsible agent, canonical name (the first, when several are). */
  agent?: string;
  /**
   * Every failure-responsible agent, when a run has several (injected faults); naming any of them
   * is right at agent level. Absent when only `agent` is known.
   */
  agents?: string[];
  /** Decisive error step, 0-based. */
  step?: number;
  reason?: string;
  /** MAST failure modes of responsible agents (`2.3` is mode FM-2.3), when the source has them. */
  faults?: { agent: string; mode: string }[];
  /** MAST failure modes present in the run as a whole (mast.ts), when the source labels them. */
  modes?: string[];
  /** True when a person set this label on the page, rather than the file carrying it. */
  byUser?: boolean;
  /**
   * Set when `faultline verify --label` wrote the label: counterfactual replay proved the step
   * decisive (the run replayed with it fixed passed its check).
   */
  proof?: LabelProof;
}

/** How `verify` proved a label's step: the replayed run that flipped, and the replays it took. */
export interface LabelProof {
  run: string;
  replays: number;
}

/** The outcome of the run when the source says it. */
export type TraceOutcome = 'success' | 'failure' | 'unknown';

/** A whole run in canonical form. */
export interface Trace {
  id: string;
  /** Name of the importer that produced it. */
  format: string;
  /** The file it came from, as given or found. */
  source?: string;
  question?: string;
  groundTruth?: string;
  outcome: TraceOutcome;
  steps: Step[];
  agents: AgentInfo[];
  metadata: Record<string, unknown>;
  labels?: TraceLabels;
  /**
   * The id of a passing run of the same task to compare this one with (method `diverge`), among
   * the runs read with it: `faultline inject` names each injected run's clean run.
   */
  reference?: string;
}
