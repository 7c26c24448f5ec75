/**
 * The contract of attribution methods and their result. The CLI's `--json` line, the library API
 * and the server all return this object.
 */
import type { Trace } from '../trace/model.js';
import type { Divergence } from './diverge/types.js';
import type { SpectrumSummary } from './spectrum/summary.js';

/** A scored alternative step. */
export interface Candidate {
  step: number;
  agent: string;
  /** Probability or score given by the method; higher is more likely decisive. */
  score: number;
}

/** A line of the run quoted as evidence for a verdict. */
export interface Evidence {
  /** The step the line is in (the named step, or the one right after it). */
  step: number;
  /** The line as written, shortened to 160 characters (`...` marks a cut). */
  quote: string;
}

/** A MAST failure mode found in the run (src/trace/mast.ts). */
export interface FoundMode {
  /** `2.6` for FM-2.6. */
  code: string;
  name: string;
  /** What the mode is, and what to change when it occurs. */
  definition: string;
  fix: string;
  /** Probability that the mode is present, when the method can say. */
  confidence?: number;
  /** How many times more likely than in the training runs (offline method). */
  lift?: number;
  /**
   * Whether the text output and the page list it by default (offline method): its held-out
   * decision beats the constant answer and it is among the three of highest lift.
   */
  shown?: boolean;
}

/** One agent's failure modes, as Aegis pairs them. */
export interface AgentModes {
  agent: string;
  modes: FoundMode[];
}

/** Calls and tokens a method spent; zero for offline methods. */
export interface Usage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Estimated cost in US dollars, when a price is known. */
  costUsd?: number;
  /** Calls whose log was shortened to fit the model's context (LLM methods). */
  shortenedCalls?: number;
}

/** What a method concludes about one trace. */
export interface Attribution {
  /** Failure-responsible agent, canonical name; null when the method could not tell. */
  agent: string | null;
  /** Decisive error step, 0-based; null when the method could not tell. */
  step: number | null;
  /** Why, quoting the evidence. */
  reason: string;
  /** The lines the reason quotes, each with its step (offline method), for highlighting. */
  evidence?: Evidence[];
  /** Registry name of the method. */
  method: string;
  /** Probability the named step is the decisive one, when the method can say. */
  confidence?: number;
  /** Probability the named agent is responsible, when the method can say. */
  agentConfidence?: number;
  /**
   * false when the trace looks unlike the runs the method learned from (a new team or structure):
   * its answer is then a guess. Set by the offline method; absent for methods that cannot tell.
   */
  familiar?: boolean;
  /**
   * What the stated agent confidence rests on (offline method): `familiar`, held-out runs of the
   * systems it was trained on (the chance that the named agent is *the* responsible one);
   * `unseen-systems`, runs of systems left out of training in turn (the run looks unlike the
   * training runs): their mean share of answers naming one of the responsible agents.
   */
  confidenceBasis?: 'familiar' | 'unseen-systems';
  /**
   * With `unseen-systems`: the lowest and highest share of such answers that were right (named one
   * of the responsible agents) on the held-out systems, where the model file records it.
   */
  heldOutRange?: [number, number];
  /**
   * With `unseen-systems`: the lowest and highest share of named steps that were the labelled one
   * on held-out systems with step labels (and measured unseen systems), where the model records it.
   */
  heldOutStepRange?: [number, number];
  /**
   * Whether the agent scorer had a clear favourite (its runner-up at most half as likely; offline
   * method): the signal an unfamiliar run's stated confidences rest on.
   */
  clearFavourite?: boolean;
  /**
   * The most likely agents with their stated confidence, the named one first (at most three;
   * offline method).
   */
  agentCandidates?: { agent: string; confidence: number }[];
  /** Best alternatives, most likely first. */
  candidates?: Candidate[];
  /**
   * `score` where the candidates' scores are the method's own scale, not probabilities (spectrum:
   * a step's suspiciousness, its formula with FAMAS's factors, which may pass 1; combined: the
   * weighted sum of its evidence, 0 to 1): shown as scores, never as percents. Absent:
   * probabilities.
   */
  candidateScale?: 'score';
  /**
   * MAST failure modes present in the run, most likely first; absent when the method does not
   * name modes (an offline model without a mode classifier, say).
   */
  modes?: FoundMode[];
  /** Every learned mode's probability, by code, named or not (offline method). */
  modeProbabilities?: Record<string, number>;
  /** The code of the listed mode most tied to the named step, when one is (offline method). */
  stepMode?: string;
  /**
   * Each agent's own modes, as Aegis pairs them, agents with a mode only, most confident first;
   * present when the offline model has a per-agent classifier.
   */
  agentModes?: AgentModes[];
  usage: Usage;
  /** `provider:model` of LLM methods. */
  model?: string;
  /** True when the model's reply could not be read after one retry; `raw` holds it. */
  unparsed?: boolean;
  raw?: string;
  /** Things the user should know, e.g. that the log was shortened to fit the context. */
  warnings?: string[];
  /** `paper` when an LLM method sent the Who&When paper's prompts (`--prompts paper`). */
  prompts?: 'paper';
  /**
   * With the paper's prompts, the answer faultline's tolerant reading of the replies gives
   * (agent and step above are the paper's strict reading); docs/PROTOCOL.md.
   */
  lenient?: LenientReading;
  /** Where the run departs from a passing run of the same task (method `diverge`). */
  divergence?: Divergence;
  /** The spectrum of the run's task, in brief (method `spectrum`, or a verdict that used it). */
  spectrum?: SpectrumSummary;
  /**
   * Set by `faultline verify` when counterfactual replay proved the named step: the run replayed
   * with a fix at that step passed its check.
   */
  verified?: ReplayProof;
}

/** How counterfactual replay proved a step decisive. */
export interface ReplayProof {
  step: number;
  agent: string;
  /** Replays it took (the one that flipped included). */
  replays: number;
  /** The replayed run that flipped: its file, or its run id. */
  run: string;
  /**
   * Whether a fix at every model call before the step was replayed without a flip, so that the
   * step is the earliest that flips; absent in results stored before verify searched for it.
   */
  earlierAllTried?: boolean;
  /** The model-call steps before the step that were not replayed (the budget ran out). */
  earlierUntried?: number[];
}

/** The answer of the tolerant reading of replies to the paper's prompts. */
export interface LenientReading {
  agent: string | null;
  step: number | null;
  reason: string;
  /** True when a reply could not be read this way either (it never guesses). */
  unparsed?: boolean;
}

/** Settings every method accepts. */
export interface AttributeOptions {
  /** Use the task's expected answer when the trace has one (default true). */
  useGroundTruth?: boolean;
  /** Step-by-step: most verdicts asked before giving up (default: every step). */
  maxCalls?: number;
  /** A passing run of the same task, for methods that compare with one (`diverge`). */
  reference?: Trace;
  /**
   * Other runs of the same task, passing or failing, for methods that compare many runs
   * (`spectrum`); the run attributed need not be among them.
   */
  runs?: readonly Trace[];
}

/** An attribution method, registered by name. */
export interface AttributionMethod {
  name: string;
  description: string;
  attribute(trace: Trace, options?: AttributeOptions): Promise<Attribution>;
}

/** A probability as a whole percent for reasons and messages: `0.634` → `63%`. */
export const wholePercent = (value: number) => `${Math.round(value * 100)}%`;

/** Usage of a method that made no model calls. */
export const NO_USAGE: Usage = Object.freeze({
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
});
