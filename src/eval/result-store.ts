/**
 * Evaluation results as they arrive: one JSON line per (method, setting, trace), appended and
 * flushed at once, so an interrupted run loses at most the trace in flight and a rerun continues
 * where it stopped. A truncated last line (a kill mid-write) is ignored on reading.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { Attribution, Usage } from '../attribution/method.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';

/** One evaluated trace under one method and setting. */
export interface EvalRecord {
  method: string;
  useGroundTruth: boolean;
  /** Cross-validated records: the fold assignment's seed (one record per trace and seed). */
  foldSeed?: number;
  /**
   * A fingerprint of the settings that change this result (model, endpoint, context, call and
   * price settings; the offline model file; the folds and the labelled runs a held-out model
   * trained on; the passing run diverge compared with): a stored result is reused only under the
   * same settings.
   */
  settings?: string;
  /** Content hash of the trace: the resumption key. */
  traceKey: string;
  file: string;
  id: string;
  subset: string;
  steps: number;
  /** agent and step are null when the method could not tell (an unreadable model reply). */
  predicted: {
    agent: string | null;
    step: number | null;
    reason: string;
    confidence?: number;
    agentConfidence?: number;
    unparsed?: boolean;
    /** What the method warned about (a log shortened to fit the context, say). */
    warnings?: string[];
    /** The MAST mode codes the method named, when it names modes. */
    modes?: string[];
  };
  /** The labels: the responsible agent (all of them when several are), the step when known. */
  label: { agent?: string; agents?: string[]; step?: number };
  usage: Usage;
  milliseconds: number;
}

/** Key of a record within a run. */
export function recordKey(
  record: Pick<
    EvalRecord,
    'method' | 'useGroundTruth' | 'traceKey' | 'file' | 'foldSeed' | 'settings'
  >,
): string {
  const seed = record.foldSeed === undefined ? '' : `|seed ${record.foldSeed}`;
  // The path is resolved, so `runs/a.json` and `/home/me/runs/a.json` are the same trace.
  return `${record.method}|${record.useGroundTruth ? 'gt' : 'no-gt'}|${record.traceKey}|${resolve(record.file)}${seed}|${record.settings ?? ''}`;
}

/** A short fingerprint of settings, for `EvalRecord.settings`. */
export function settingsFingerprint(settings: Record<string, unknown>): string | undefined {
  const entries = Object.entries(settings).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return undefined;
  const text = JSON.stringify(entries.sort(([left], [right]) => left.localeCompare(right)));
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The trace a record is about, the same for every method, setting and seed. */
export function recordTraceKey(record: Pick<EvalRecord, 'traceKey' | 'file'>): string {
  return `${record.traceKey}|${record.file}`;
}

/** A trace's labels as a record keeps them. */
function labelOf(trace: Trace): EvalRecord['label'] {
  return {
    ...(trace.labels?.agent ? { agent: trace.labels.agent } : {}),
    ...(trace.labels?.agents && trace.labels.agents.length > 1
      ? { agents: trace.labels.agents }
      : {}),
    ...(trace.labels?.step === undefined ? {} : { step: trace.labels.step }),
  };
}

/**
 * A stored record judged against the trace's labels as they are now: a label corrected since the
 * prediction was stored (taught on the page) is what the prediction is scored against.
 */
export function withCurrentLabel(record: EvalRecord, trace: Trace): EvalRecord {
  return { ...record, label: labelOf(trace) };
}

/** What was predicted for one trace under one method and setting, as stored. */
export function recordOf(
  attribution: Attribution,
  context: {
    method: string;
    useGroundTruth: boolean;
    trace: Trace;
    traceKey: string;
    milliseconds: number;
    foldSeed?: number;
    settings?: string;
  },
): EvalRecord {
  const { trace } = context;
  return {
    method: context.method,
    useGroundTruth: context.useGroundTruth,
    ...(context.foldSeed === undefined ? {} : { foldSeed: context.foldSeed }),
    ...(context.settings === undefined ? {} : { settings: context.settings }),
    traceKey: context.traceKey,
    file: trace.source ?? trace.id,
    id: trace.id,
    subset: subsetOf(trace),
    steps: trace.steps.length,
    predicted: {
      agent: attribution.agent,
      step: attribution.step,
      reason: attribution.reason,
      ...(attribution.confidence === undefined ? {} : { confidence: attribution.confidence }),
      ...(attribution.agentConfidence === undefined
        ? {}
        : { agentConfidence: attribution.agentConfidence }),
      ...(attribution.unparsed ? { unparsed: true } : {}),
      ...(attribution.warnings && attribution.warnings.length > 0
        ? { warnings: attribution.warnings }
        : {}),
      ...(attribution.modes ? { modes: attribution.modes.map((mode) => mode.code) } : {}),
    },
    label: labelOf(trace),
    usage: attribution.usage,
    milliseconds: Number(context.milliseconds.toFixed(3)),
  };
}

/** An append-only JSON Lines file of EvalRecords. */
export class ResultStore {
  readonly file: string;
  private readonly records = new Map<string, EvalRecord>();
  /** Set when the file ends mid-line (an interrupted write): the next append starts a new line. */
  private needsNewline = false;

  /** Opens `file`; with `fresh`, earlier results in it are not reused (they stay in the file). */
  constructor(file: string, options: { fresh?: boolean } = {}) {
    this.file = file;
    if (!existsSync(file)) return;
    const text = readFileSync(file, 'utf8');
    this.needsNewline = text.length > 0 && !text.endsWith('\n');
    if (options.fresh) return;
    for (const line of text.split('\n')) {
      if (line.trim().length === 0) continue;
      try {
        const record = JSON.parse(line) as EvalRecord;
        this.records.set(recordKey(record), record);
      } catch {
        // A line cut short by an interruption: that trace is simply evaluated again.
      }
    }
  }

  /** The stored record for a key, if any. */
  get(key: string): EvalRecord | undefined {
    return this.records.get(key);
  }

  /** Stores and persists a record immediately. */
  add(record: EvalRecord): void {
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${this.needsNewline ? '\n' : ''}${JSON.stringify(record)}\n`);
    this.needsNewline = false;
    this.records.set(recordKey(record), record);
  }

  /** Number of stored records. */
  get size(): number {
    return this.records.size;
  }
}
