/**
 * The Who&When Pro layout: one run per object (a file holds one, a JSON list of them, or JSON Lines
 * with one a line), each with its failure labelled by agent, step and MAST mode. What is read:
 *
 * - `id` (string or number): the trace id; else the file's name (`-N` for the Nth run of a file).
 * - `framework`, `benchmark`: kept in `metadata` (the framework also as `subset`).
 * - `agents`: names, or objects with a `name`; kept in `metadata.declaredAgents`.
 * - `task`: the question as text, or an object with `question` (or `query`, `description`) and
 *   maybe the expected answer in `answer` (or `ground_truth`); a top-level `question` otherwise.
 * - `trajectory[]`: one step each, in order. The speaker is `agent`, else `agent_name`, `name`,
 *   `role`; the text is `content`, else `output`, `action` (any JSON, kept as text), else the
 *   OpenAI-style `tool_calls` it makes. `role` `tool`/`function` makes a tool step; `user`, `human`
 *   or `system` a human or system step where no agent is named. `step` (or `index`), a number or
 *   numeric text, is the step's own number, which labels may use; `timestamp` is kept.
 * - `ground_truth`: `agent` (or `mistake_agent`; a list names several), `step` (or
 *   `mistake_step`), `mode`/`modes`/`failure_mode`/`failure_modes` (MAST codes such as `FM-2.3` or
 *   `2.3`, or names such as `Task derailment`; one or a list), `reason` (or `mistake_reason`). The
 *   same `mistake_agent`, `mistake_step`, `mistake_reason` may stand at the top level instead. A
 *   label step is the trajectory entry that carries that `step` number, else (no entry does) a
 *   0-based index into the trajectory, as Who&When's `mistake_step`; one naming neither is an
 *   error.
 * - `is_correct` (or `success`): the outcome; without it a run labelled with a failure is one.
 *
 * Modes of a named agent become its faults (as AEGIS writes injected faults); modes without an
 * agent are the run's modes. The labels are read in who-and-when-pro-labels.ts.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  isObject,
  itemPosition,
  openAiToolCalls,
  recordNumber,
  recordPosition,
  textOf,
  validate,
  type ImportContext,
  type TraceFormat,
} from '../format.js';
import type { StepRole, Trace } from '../model.js';
import type { RawInput } from '../read-input.js';
import { callsText } from '../step-text.js';
import { requireSteps } from '../chat-messages.js';
import { labelFields, labelsOf, numberOf, stepNumber, text } from './who-and-when-pro-labels.js';

const NAME = 'who-and-when-pro';

const entrySchema = z.object({
  step: stepNumber,
  index: stepNumber,
  agent: text,
  agent_name: text,
  name: text,
  role: text,
  content: z.unknown().optional(),
  output: z.unknown().optional(),
  action: z.unknown().optional(),
  tool_calls: z.array(z.unknown()).nullish(),
  timestamp: z.union([z.string(), z.number()]).nullish(),
});

const recordSchema = z.object({
  id: z.union([z.string(), z.number()]).nullish(),
  framework: text,
  benchmark: text,
  agents: z.array(z.union([z.string(), z.object({ name: z.string() })])).nullish(),
  task: z
    .union([
      z.string(),
      z.object({
        question: text,
        query: text,
        description: text,
        answer: z.unknown().optional(),
        ground_truth: z.unknown().optional(),
      }),
    ])
    .nullish(),
  question: text,
  ...labelFields,
  is_correct: z.boolean().nullish(),
  success: z.boolean().nullish(),
  trajectory: z.array(z.unknown()),
});
type Entry = z.infer<typeof entrySchema>;

/**
 * A Pro record: a trajectory with Pro's labels or run fields, and not AEGIS's flat layout (whose
 * `faulty_agents` the AEGIS importer reads).
 */
const isRecord = (value: unknown): boolean =>
  isObject(value) &&
  Array.isArray(value.trajectory) &&
  !('faulty_agents' in value) &&
  (isObject(value.ground_truth) ||
    'mistake_agent' in value ||
    'mistake_step' in value ||
    ('agents' in value && ('framework' in value || 'benchmark' in value)));

/** The records of a file: one object, a JSON list of them, or JSON Lines. */
function recordsOf(input: RawInput): unknown[] | undefined {
  if (input.kind === 'jsonl') return input.records.length > 0 ? input.records : undefined;
  if (input.kind !== 'json') return undefined;
  if (Array.isArray(input.value)) return input.value.length > 0 ? input.value : undefined;
  return [input.value];
}

/** A role the entry's `role` field sets, where the speaker is the role itself or a tool. */
function roleOf(entry: Entry, speaker: string): StepRole | undefined {
  const role = entry.role?.trim().toLowerCase();
  if (role === 'tool' || role === 'function') return 'tool';
  if (speaker !== entry.role?.trim()) return undefined;
  if (role === 'user' || role === 'human') return 'human';
  return role === 'system' ? 'system' : undefined;
}

function stepOf(
  raw: unknown,
  position: string,
  file: string,
): { step: DraftStep; number?: number } {
  const entry = validate(entrySchema, raw, { file, format: NAME, prefix: position });
  const speaker = (entry.agent ?? entry.agent_name ?? entry.name ?? entry.role)?.trim();
  if (!speaker)
    throw new TraceFormatError(file, 'the step names no agent (agent, agent_name, name or role)', {
      format: NAME,
      position,
    });
  const toolCalls = openAiToolCalls({ tool_calls: entry.tool_calls });
  const said = entry.content ?? entry.output ?? entry.action;
  if (said === undefined && toolCalls.length === 0)
    throw new TraceFormatError(
      file,
      'the step has no text (content, output or action) and makes no tool call',
      { format: NAME, position },
    );
  const step: DraftStep = { speaker, content: textOf(said) || callsText(toolCalls) };
  const role = roleOf(entry, speaker);
  if (role) step.role = role;
  if (toolCalls.length > 0) step.toolCalls = toolCalls;
  if (entry.timestamp !== null && entry.timestamp !== undefined)
    step.timestamp = String(entry.timestamp);
  const number = numberOf(entry.step ?? entry.index);
  return number === undefined ? { step } : { step, number };
}

function traceOf(record: unknown, context: ImportContext, position: string, id: string): Trace {
  const where = { file: context.file, format: NAME, prefix: position };
  const run = validate(recordSchema, record, where);
  const at = (field: string) => (position ? `${position}.${field}` : field);
  requireSteps(run.trajectory, context.file, NAME, at('trajectory'));
  const read = run.trajectory.map((entry, index) =>
    stepOf(entry, itemPosition(at('trajectory'), index), context.file),
  );
  const steps = read.map((entry) => entry.step);

  const labels = labelsOf(run, read, { file: context.file, at });
  const labelled = Object.keys(labels).length > 0;

  const task = run.task;
  const question = (
    typeof task === 'string'
      ? task
      : (task?.question ?? task?.query ?? task?.description ?? run.question)
  )?.trim();
  const answer = isObject(task) ? textOf(task.answer ?? task.ground_truth) : '';
  const correct = run.is_correct ?? run.success;
  const declared = (run.agents ?? []).map((agent) =>
    typeof agent === 'string' ? agent : agent.name,
  );
  return buildTrace({
    id: run.id !== null && run.id !== undefined ? String(run.id) : id,
    format: NAME,
    source: context.file,
    ...(question ? { question } : {}),
    ...(answer ? { groundTruth: answer } : {}),
    outcome: correct === true ? 'success' : correct === false || labelled ? 'failure' : 'unknown',
    steps,
    metadata: {
      ...(run.framework ? { subset: run.framework, framework: run.framework } : {}),
      ...(run.benchmark ? { benchmark: run.benchmark } : {}),
      ...(declared.length > 0 ? { declaredAgents: declared } : {}),
    },
    ...(labelled ? { labels } : {}),
  });
}

export const whoAndWhenProFormat: TraceFormat = {
  name: NAME,
  description:
    'Who&When Pro runs (trajectory with agent, step and MAST mode labels; JSON or JSON Lines)',
  recordsAreRuns: true,
  detect(input) {
    const records = recordsOf(input);
    return records !== undefined && isRecord(records[0]);
  },
  parse(input, context) {
    const records = recordsOf(input);
    if (!records)
      throw new TraceFormatError(context.file, 'expected Who&When Pro records', { format: NAME });
    if (records.length === 1 && input.kind === 'json' && !Array.isArray(input.value))
      return [traceOf(records[0], context, '', context.id)];
    return records.map((record, index) =>
      traceOf(
        record,
        context,
        recordPosition(input, index),
        `${context.id}-${recordNumber(input, index)}`,
      ),
    );
  },
};
