/**
 * Which task a run is a run of, so that runs of one task can be compared (spectrum analysis,
 * docs/SPECTRUM.md). A run names its task where it was recorded (`metadata.task`: the proxy's
 * `x-faultline-task` header, the `faultline.task` span attribute, `--task`); otherwise the task is
 * a fingerprint of its text (the question, else the first message of a person), with what changes
 * between runs masked (numbers, ids, paths, links, dates) and white space squashed.
 */
import { createHash } from 'node:crypto';
import type { Trace, TraceOutcome } from './model.js';

/** The metadata key of a run's declared task. */
export const TASK_KEY = 'task';

/** A task text with what varies from run to run masked. */
export function maskTaskText(text: string): string {
  return text
    .replace(/\bhttps?:\/\/\S+/gi, '<link>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?/g, '<time>')
    .replace(/\b(?=[a-z_]*\d)[0-9a-f_-]{12,}\b/gi, '<id>')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** `task-` and 12 hex characters of the masked text's SHA-256. */
export function taskFingerprint(text: string): string {
  return `task-${createHash('sha256').update(maskTaskText(text)).digest('hex').slice(0, 12)}`;
}

/** The text a run's task is read from: its question, else the first person's message. */
export function taskText(trace: Pick<Trace, 'question' | 'steps'>): string | undefined {
  if (trace.question && trace.question.trim() !== '') return trace.question;
  return trace.steps.find((step) => step.role === 'human' && step.content.trim() !== '')?.content;
}

/** The run's task: the one it declares, else its text's fingerprint; undefined when it has none. */
export function taskOf(trace: Pick<Trace, 'question' | 'steps' | 'metadata'>): string | undefined {
  const declared = trace.metadata[TASK_KEY];
  if (typeof declared === 'string' && declared !== '') return declared;
  const text = taskText(trace);
  return text === undefined ? undefined : taskFingerprint(text);
}

/** The span attribute (or resource attribute) that names a run's task in OpenTelemetry. */
export const TASK_ATTRIBUTE = 'faultline.task';

/** The task the spans of a run name (`faultline.task` on a span or its resource), if any. */
export function taskFromSpans(
  spans: readonly { attributes: Record<string, unknown>; resource?: Record<string, unknown> }[],
): string | undefined {
  for (const span of spans) {
    const value = span.attributes[TASK_ATTRIBUTE] ?? span.resource?.[TASK_ATTRIBUTE];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

const PASSED_FOLDER = /^(?:pass|passed|passing|success|succeeded|ok)$/i;
const FAILED_FOLDER = /^(?:fail|failed|failing|failure)$/i;

/**
 * A run's outcome from the folder it lies in, for files that do not say (docs/SPECTRUM.md): a
 * file under a folder named `passed` (or `pass`, `success`, `ok`) passed, one under `failed` (or
 * `fail`, `failure`) failed; the nearest such folder counts.
 */
export function outcomeFromPath(path: string): TraceOutcome {
  const folders = path.split(/[\\/]/).slice(0, -1).reverse();
  for (const folder of folders) {
    if (PASSED_FOLDER.test(folder)) return 'success';
    if (FAILED_FOLDER.test(folder)) return 'failure';
  }
  return 'unknown';
}
