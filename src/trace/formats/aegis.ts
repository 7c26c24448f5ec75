/**
 * AEGIS injected-fault runs (arXiv 2509.14295): a successful run replayed with some agents'
 * actions corrupted, so the responsible agents and their MAST modes are known by construction.
 * Two layouts: the flat one (`question`, `trajectory[{step, agent_name, content}]`,
 * `faulty_agents[{agent_name, error_type}]`) and the release's (`input.conversation_history`,
 * `output.faulty_agents`, `metadata`, `ground_truth`). A JSON Lines file holds one run per line.
 * There are no step labels; every faulty agent is a responsible agent.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { matchAgentName } from '../agents.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  isObject,
  recordNumber,
  recordPosition,
  textOf,
  validate,
  type ImportContext,
  type TraceFormat,
} from '../format.js';
import { mastCode } from '../mast.js';
import type { Trace } from '../model.js';
import { requireSteps } from '../chat-messages.js';
import { trimEndOf } from '../text-limits.js';

const NAME = 'aegis';

const turnSchema = z.object({
  agent_name: z.string(),
  content: z.unknown(),
  phase: z.string().nullish(),
});
const faultSchema = z.object({ agent_name: z.string(), error_type: z.string().nullish() });

const flatSchema = z.object({
  question: z.string().nullish(),
  trajectory: z.array(turnSchema),
  faulty_agents: z.array(faultSchema),
});

const releaseSchema = z.object({
  id: z.union([z.string(), z.number()]).nullish(),
  metadata: z
    .object({ framework: z.string().nullish(), benchmark: z.string().nullish() })
    .nullish(),
  input: z.object({
    query: z.string().nullish(),
    conversation_history: z.array(turnSchema),
  }),
  output: z.object({ faulty_agents: z.array(faultSchema) }),
  ground_truth: z.object({ correct_answer: z.unknown() }).nullish(),
});

const isFlat = (value: unknown) =>
  isObject(value) && Array.isArray(value.trajectory) && Array.isArray(value.faulty_agents);
const isRelease = (value: unknown) =>
  isObject(value) &&
  isObject(value.input) &&
  Array.isArray(value.input.conversation_history) &&
  isObject(value.output) &&
  Array.isArray(value.output.faulty_agents);
const isRecord = (value: unknown) => isFlat(value) || isRelease(value);

/** The records of a file: one object, an array of them, or JSON Lines. */
function recordsOf(input: Parameters<TraceFormat['detect']>[0]): unknown[] | undefined {
  if (input.kind === 'jsonl') return input.records.length > 0 ? input.records : undefined;
  if (input.kind !== 'json') return undefined;
  if (Array.isArray(input.value)) return input.value.length > 0 ? input.value : undefined;
  return [input.value];
}

/**
 * A label's speaker: as `matchAgentName` finds it (up to case and separators, as every label is
 * matched), else the one speaker whose name matches once a trailing number is dropped from both
 * (labels say `Critic` for `Critic1`).
 */
function speakerOf(label: string, speakers: readonly string[]): string {
  const matched = matchAgentName(label, speakers);
  if (speakers.includes(matched)) return matched;
  const stem = (name: string) => trimEndOf(trimEndOf(name.toLowerCase(), '0123456789'), ' \t\n_-');
  const matches = speakers.filter((speaker) => stem(speaker) === stem(label));
  return matches.length === 1 ? matches[0]! : label.trim();
}

function traceOf(
  record: unknown,
  context: ImportContext,
  position: string,
  id: string,
  collection: string | undefined,
): Trace {
  const where = { file: context.file, format: NAME, prefix: position };
  const release = isRelease(record) ? validate(releaseSchema, record, where) : undefined;
  const flat = release ? undefined : validate(flatSchema, record, where);
  const turns = release?.input.conversation_history ?? flat?.trajectory ?? [];
  const faults = release?.output.faulty_agents ?? flat?.faulty_agents ?? [];
  const field = release ? 'input.conversation_history' : 'trajectory';
  requireSteps(turns, context.file, NAME, position ? `${position}.${field}` : field);
  const steps: DraftStep[] = turns.map((turn) => ({
    speaker: turn.agent_name,
    content: textOf(turn.content),
  }));
  const speakers = [...new Set(steps.map((step) => step.speaker))];
  const question = release?.input.query ?? flat?.question;
  const answer = release?.ground_truth?.correct_answer;
  return buildTrace({
    id: release?.id !== null && release?.id !== undefined ? String(release.id) : id,
    format: NAME,
    source: context.file,
    ...(question ? { question: question.trim() } : {}),
    ...(answer !== null && answer !== undefined && textOf(answer)
      ? { groundTruth: textOf(answer) }
      : {}),
    outcome: 'failure',
    steps,
    metadata: {
      // The system the run comes from: the release names it; a file of many runs is one system.
      ...(release?.metadata?.framework || collection
        ? { subset: release?.metadata?.framework ?? collection }
        : {}),
      ...(release?.metadata?.framework ? { framework: release.metadata.framework } : {}),
      ...(release?.metadata?.benchmark ? { benchmark: release.metadata.benchmark } : {}),
    },
    labels: {
      agents: faults.map((fault) => speakerOf(fault.agent_name, speakers)),
      faults: faults
        .filter((fault) => fault.error_type)
        .map((fault) => ({
          agent: speakerOf(fault.agent_name, speakers),
          mode: mastCode(fault.error_type ?? '') ?? (fault.error_type ?? '').trim(),
        })),
    },
  });
}

export const aegisFormat: TraceFormat = {
  name: NAME,
  description: 'AEGIS injected-fault runs (flat or release layout; JSON, JSON array or JSON Lines)',
  recordsAreRuns: true,
  detect(input) {
    const records = recordsOf(input);
    return records !== undefined && isRecord(records[0]);
  },
  parse(input, context) {
    const records = recordsOf(input);
    if (!records)
      throw new TraceFormatError(context.file, 'expected AEGIS records', { format: NAME });
    const single = records.length === 1 && input.kind === 'json' && !Array.isArray(input.value);
    if (single) return [traceOf(records[0], context, '', context.id, undefined)];
    return records.map((record, index) =>
      traceOf(
        record,
        context,
        recordPosition(input, index),
        `${context.id}-${recordNumber(input, index)}`,
        context.id,
      ),
    );
  },
};
