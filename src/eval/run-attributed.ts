/**
 * The records of a method that attributes each trace itself (offline, the LLM methods, the
 * heuristics): stored ones are reported, the rest attributed (LLM methods several at once) and
 * stored as each arrives, so a rerun continues where a failure stopped.
 */
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { loadOfflineModel } from '../attribution/offline/attribute/attributor.js';
import type { AttributionMethod } from '../attribution/method.js';
import { ProviderError } from '../errors.js';
import { traceHash } from '../trace/hash.js';
import {
  recordKey,
  recordOf,
  settingsFingerprint,
  withCurrentLabel,
  type EvalRecord,
} from './result-store.js';
import type { EvalOptions, MethodRun, SelectedTrace } from './run-types.js';

/**
 * Evaluates `run.selected` with the method; `lenientMethod` names where the tolerant reading of
 * paper-prompt replies is stored (those records are kept, not counted).
 */
export async function evaluateAttributed(
  run: MethodRun,
  attributor: AttributionMethod,
  lenientMethod: string | undefined,
  options: EvalOptions,
): Promise<void> {
  const { method, useGroundTruth, store, counter } = run;
  const keyed = run.selected.map((item) => ({ item, settings: settingsOf(run, item) }));
  const pending = keyed.filter(({ item, settings }) => {
    const current = (record: EvalRecord | undefined) =>
      record && withCurrentLabel(record, item.trace);
    const storedAs = (name: string) =>
      store.get(
        recordKey({
          method: name,
          useGroundTruth,
          traceKey: item.key,
          file: item.trace.source ?? item.trace.id,
          ...(settings ? { settings } : {}),
        }),
      );
    const stored = current(storedAs(method));
    const lenient = lenientMethod === undefined ? undefined : current(storedAs(lenientMethod));
    const complete = stored !== undefined && (lenientMethod === undefined || lenient);
    if (complete) counter.report(stored, true);
    if (complete && lenient) run.records.push(lenient);
    return !complete;
  });
  if (pending.length === 0) return;
  if (method === 'offline') loadOfflineModel(options.modelPath); // load once before timing
  const limit = pLimit(method === 'offline' ? 1 : (options.concurrency ?? 1));
  await Promise.all(
    pending.map(({ item, settings }) =>
      limit(() =>
        attributeOne(run, { item, settings }, attributor, lenientMethod, options.llm?.maxCalls),
      ),
    ),
  );
}

/**
 * What a trace's record is keyed by besides it: the method's settings, and for a method that
 * compares with a passing run (`diverge`) that run's content, so a changed reference is another
 * result; for one that compares many runs (`spectrum`) their contents and outcomes.
 */
function settingsOf(run: MethodRun, item: SelectedTrace): string | undefined {
  if (item.runs)
    return settingsFingerprint({
      settings: run.settings,
      runs: item.runs.map((trace) => `${traceHash(trace)} ${trace.outcome}`).sort(),
    });
  if (!item.reference) return run.settings;
  return settingsFingerprint({ settings: run.settings, reference: traceHash(item.reference) });
}

/** Attributes one trace, stores its record (and its tolerant reading) and reports it. */
async function attributeOne(
  run: MethodRun,
  { item, settings }: { item: SelectedTrace; settings: string | undefined },
  attributor: AttributionMethod,
  lenientMethod: string | undefined,
  maxCalls: number | undefined,
): Promise<void> {
  const { method, useGroundTruth, store, counter } = run;
  const started = performance.now();
  // The labels are what the verdict is scored against: the method never sees them (a label
  // `verify` proved is evidence the combined verdict reads, and here it is the answer).
  const { labels: _answer, ...unlabelled } = item.trace;
  const result = await attributor
    .attribute(unlabelled, {
      useGroundTruth,
      ...(maxCalls ? { maxCalls } : {}),
      ...(item.reference ? { reference: item.reference } : {}),
      ...(item.runs ? { runs: item.runs } : {}),
    })
    .catch((error: unknown) => {
      // A provider failure stops the run; the message says on which trace (the results
      // so far are stored, so a rerun continues from there).
      if (!(error instanceof ProviderError)) throw error;
      throw new ProviderError(
        `${item.trace.source ?? item.trace.id}: ${method}: ${error.message}`,
        {
          ...(error.status === undefined ? {} : { status: error.status }),
          retryable: error.retryable,
          cause: error,
        },
      );
    });
  const context = {
    method,
    useGroundTruth,
    trace: item.trace,
    traceKey: item.key,
    milliseconds: performance.now() - started,
    ...(settings ? { settings } : {}),
  };
  const record = recordOf(result, context);
  store.add(record);
  counter.report(record, false);
  if (lenientMethod !== undefined && result.lenient) {
    const { agent, step, reason, unparsed } = result.lenient;
    const lenient = recordOf(
      { ...result, agent, step, reason, unparsed: unparsed === true },
      { ...context, method: lenientMethod },
    );
    store.add(lenient);
    run.records.push(lenient);
  }
}
