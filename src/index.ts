/**
 * faultline's public API. Only what is listed here is supported for library use.
 */
export type {
  AgentInfo,
  Step,
  StepLogprobs,
  StepRole,
  ToolCall,
  ToolResult,
  Trace,
  TraceLabels,
  TraceOutcome,
} from './trace/model.js';
export {
  loadTrace,
  loadTraces,
  loadBatch,
  importTraceText,
  importTraceBytes,
  readTracesFromFile,
  readTracesFromBytes,
  expandPaths,
  toTrace,
  type TraceInput,
  type TracesRead,
  type LoadOptions,
  type LoadResult,
} from './trace/load.js';
export { listFormats, getFormat } from './trace/registry.js';
export type { TraceFormat, ImportContext } from './trace/format.js';
export { toMessagesDocument, type MessagesDocument } from './trace/export.js';
export { canonicalAgentName, responsibleAgents, sameAgent } from './trace/agents.js';
export { traceHash } from './trace/hash.js';

export type {
  AgentModes,
  Attribution,
  AttributeOptions,
  AttributionMethod,
  Candidate,
  FoundMode,
  ReplayProof,
  Usage,
} from './attribution/method.js';
export { attribute, type AttributeCallOptions } from './attribution/attribute.js';
export { getMethod, listMethods, DEFAULT_METHOD } from './attribution/registry.js';
export { diffTraces, type DiffOptions } from './attribution/diverge/diff.js';
export type {
  AlignedPair,
  Aspect,
  Divergence,
  PairStatus,
  TraceDiff,
} from './attribution/diverge/types.js';
export {
  createOfflineMethod,
  loadOfflineModel,
  attributeWithModel,
  predictOffline,
  DEFAULT_MODEL_PATH,
} from './attribution/offline/attribute/attributor.js';
export {
  trainModelFile,
  MODEL_PARTS,
  MIN_MODE_RUNS,
  type ModelPart,
  type ModeTraining,
  type TrainModelOptions,
} from './attribution/offline/train/train-model-file.js';
export {
  DEFAULT_TRAIN_SETTINGS,
  type TrainSettings,
} from './attribution/offline/model/settings.js';
export { withMinimumConfidence } from './attribution/min-confidence.js';
export type { OfflineModel } from './attribution/offline/model/model-file.js';

export {
  allAtOnce,
  stepByStep,
  binarySearch,
  hybrid,
  createLlmMethod,
  type LlmOptions,
} from './attribution/llm/methods.js';
export {
  createModelClient,
  type ModelClient,
  type ModelClientOptions,
  type GenerateRequest,
  type GenerateResponse,
} from './llm/client.js';
export { providerNames } from './llm/provider-catalog.js';

export {
  crossValidationRecords,
  DEFAULT_FOLD_PLAN,
  type CrossValidationOptions,
} from './eval/cross-validate.js';
export { baselineOutcomes, type FoldPlan } from './eval/baselines.js';
export { calibrationOf, type Calibration } from './eval/calibration.js';
export { runEvaluation, type EvalOptions } from './eval/run-eval.js';
export { ResultStore, type EvalRecord } from './eval/result-store.js';
export { summariseEvaluation, type EvalSummary } from './eval/summary.js';
export { renderMarkdownReport } from './eval/report-markdown.js';
export { renderHtmlReport } from './eval/report-html.js';

export { startProxy, type ProxyOptions, type RunningProxy } from './recording/proxy/proxy.js';
export { Recorder, type RecorderOptions } from './recording/record/recorder.js';
export { recordingOf, type Recording, type RecordedCall } from './recording/record/recording.js';
export { replay, type ReplayOptions, type ReplayResult } from './recording/replay/replay.js';
export { verify, type VerifyOptions, type Verification } from './recording/replay/verify.js';
export { parseFix, writeFix, type Fix } from './recording/replay/fix.js';
export { markOutcome } from './recording/replay/outcome.js';
export { RunStore, type RunRecord } from './store/runs.js';
export { openDatabase, StoreUnavailableError, type Db } from './store/database.js';

export {
  FaultlineError,
  UserError,
  TraceFormatError,
  ModelFileError,
  ProviderError,
} from './errors.js';
