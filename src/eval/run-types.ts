/** The options and run information of an evaluation (run-eval.ts); its progress is run-progress.ts. */
import type { LlmOptions } from '../attribution/llm/catalog.js';
import type { FoldPlan } from '../attribution/offline/train/folds.js';
import type { Trace } from '../trace/model.js';
import type { EvalRecord, ResultStore } from './result-store.js';
import type { EvalProgress, ProgressCounter } from './run-progress.js';

export type { EvalProgress } from './run-progress.js';

/** What to evaluate. */
export interface EvalOptions {
  methods: string[];
  groundTruthSettings: boolean[];
  /** Offline model file (the shipped one by default). */
  modelPath?: string;
  /** Keep the offline model's training traces in its evaluation. */
  includeTrain?: boolean;
  /** Model and call settings for LLM methods. */
  llm?: LlmOptions;
  /** Traces evaluated at once by LLM methods (default 1). */
  concurrency?: number;
  /** Folds and seeds of `offline-cv` and of the learned baselines (default: DEFAULT_FOLD_PLAN). */
  plan?: FoldPlan;
  onProgress?: (progress: EvalProgress) => void;
}

/** What a run did besides its records. */
export interface EvalRunInfo {
  /** Traces left out of the `offline` method because the model was trained on them. */
  excludedTrainingTraces: number;
  includeTrain: boolean;
  /** Traces without usable labels, skipped. */
  unlabelled: number;
  /** Folds and seeds of cross-validated records and of the learned baselines. */
  plan: FoldPlan;
}

/** A trace to evaluate and its content key. */
export interface SelectedTrace {
  trace: Trace;
  key: string;
  /** The passing run it names, for methods that compare with one (`diverge`). */
  reference?: Trace;
  /** The other runs of its task, for methods that compare many runs (`spectrum`). */
  runs?: readonly Trace[];
}

/** One method and setting being evaluated. */
export interface MethodRun {
  methodName: string;
  /** The name its records are stored under (see methodKey). */
  method: string;
  useGroundTruth: boolean;
  settings: string | undefined;
  selected: SelectedTrace[];
  store: ResultStore;
  counter: ProgressCounter;
  /** The run's records, where resumed tolerant readings are added beside the counted ones. */
  records: EvalRecord[];
}
