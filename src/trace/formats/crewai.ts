/**
 * CrewAI logs: the `output_log_file` JSON (task start/completion records with `agent`, `task`,
 * `status`, `output`) and serialised event-bus events (`agent_execution_started`,
 * `llm_call_completed`, `tool_usage_finished`, ...), ordered by `emission_sequence`.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  argumentsText,
  isObject,
  itemPosition,
  JSON_LINES,
  textOf,
  validate,
  type ImportContext,
  type TraceFormat,
} from '../format.js';
import type { RawInput } from '../read-input.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'crewai';

const logEntrySchema = z.object({
  timestamp: z.string().nullish(),
  task_name: z.string().nullish(),
  task: z.string().nullish(),
  agent: z.string(),
  status: z.string().nullish(),
  output: z.unknown().optional(),
});

const eventSchema = z.object({
  type: z.string(),
  timestamp: z.string().nullish(),
  emission_sequence: z.number().nullish(),
  agent_role: z.string().nullish(),
  task_name: z.string().nullish(),
  task_prompt: z.string().nullish(),
  response: z.unknown().optional(),
  tool_name: z.string().nullish(),
  tool_args: z.unknown().optional(),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
});

const isLogEntry = (item: unknown) =>
  isObject(item) &&
  typeof item.agent === 'string' &&
  'status' in item &&
  ('task' in item || 'task_name' in item);
const isEvent = (item: unknown) =>
  isObject(item) &&
  typeof item.type === 'string' &&
  ('agent_role' in item || 'emission_sequence' in item) &&
  /^(agent|llm|tool|task|crew|flow)_/.test(item.type);

function kindOf(input: RawInput): 'log' | 'events' | undefined {
  const list =
    input.kind === 'jsonl'
      ? input.records
      : input.kind === 'json' && Array.isArray(input.value)
        ? input.value
        : undefined;
  if (!list || list.length === 0) return undefined;
  if (list.every(isLogEntry)) return 'log';
  if (list.every(isEvent)) return 'events';
  return undefined;
}

function logSteps(
  list: unknown[],
  context: ImportContext,
): { steps: DraftStep[]; question?: string } {
  const steps: DraftStep[] = [];
  let question: string | undefined;
  list.forEach((raw, index) => {
    const entry = validate(logEntrySchema, raw, {
      file: context.file,
      format: NAME,
      prefix: `[${index}]`,
    });
    const step: DraftStep =
      entry.status === 'completed'
        ? { speaker: entry.agent, content: textOf(entry.output) }
        : {
            speaker: 'Crew',
            role: 'system',
            content:
              `Task ${entry.task_name ?? ''} for ${entry.agent}: ${entry.task ?? ''}`.replace(
                '  ',
                ' ',
              ),
          };
    question ??= entry.task ?? undefined;
    if (entry.timestamp) step.timestamp = entry.timestamp;
    steps.push(step);
  });
  return question ? { steps, question } : { steps };
}

function eventSteps(
  list: unknown[],
  context: ImportContext,
): { steps: DraftStep[]; question?: string } {
  const events = list
    .map((raw, index) => ({
      event: validate(eventSchema, raw, {
        file: context.file,
        format: NAME,
        prefix: itemPosition(JSON_LINES, index),
      }),
      index,
    }))
    .sort(
      (left, right) =>
        (left.event.emission_sequence ?? left.index) -
        (right.event.emission_sequence ?? right.index),
    );
  const steps: DraftStep[] = [];
  let question: string | undefined;
  for (const { event } of events) {
    const agent = event.agent_role ?? 'agent';
    const base: Partial<DraftStep> = event.timestamp ? { timestamp: event.timestamp } : {};
    switch (event.type) {
      case 'agent_execution_started':
        question ??= event.task_prompt ?? undefined;
        steps.push({
          ...base,
          speaker: 'Crew',
          role: 'system',
          content: `Task ${event.task_name ?? ''} for ${agent}: ${event.task_prompt ?? ''}`,
        });
        break;
      case 'llm_call_completed':
      case 'agent_execution_completed':
        steps.push({
          ...base,
          speaker: agent,
          role: 'agent',
          content: textOf(event.response ?? event.output),
        });
        break;
      case 'tool_usage_finished':
      case 'tool_usage_error': {
        const tool = event.tool_name ?? 'tool';
        const failed = event.type === 'tool_usage_error';
        const result = textOf(failed ? event.error : event.output);
        steps.push({
          ...base,
          speaker: tool,
          role: 'tool',
          content: `${tool}(${argumentsText(event.tool_args)})\n${result}`,
          toolResults: [{ name: tool, content: result, ...(failed ? { isError: true } : {}) }],
          ...(failed ? { error: result } : {}),
        });
        break;
      }
      case 'agent_execution_error':
      case 'llm_call_failed':
      case 'task_failed':
        steps.push({
          ...base,
          speaker: agent,
          role: 'agent',
          content: textOf(event.error),
          error: textOf(event.error),
        });
        break;
    }
  }
  return question ? { steps, question } : { steps };
}

export const crewAiFormat: TraceFormat = {
  name: NAME,
  description: 'CrewAI output_log_file JSON and event-bus event streams',
  detect(input) {
    return kindOf(input) !== undefined;
  },
  parse(input, context) {
    const kind = kindOf(input);
    const list =
      input.kind === 'jsonl'
        ? input.records
        : input.kind === 'json' && Array.isArray(input.value)
          ? input.value
          : [];
    if (!kind)
      throw new TraceFormatError(context.file, 'expected a CrewAI log or event list', {
        format: NAME,
      });
    const { steps, question } =
      kind === 'log' ? logSteps(list, context) : eventSteps(list, context);
    requireSteps(steps, context.file, NAME, 'entries');
    return [
      buildTrace({
        id: context.id,
        format: NAME,
        source: context.file,
        ...(question ? { question } : {}),
        steps,
      }),
    ];
  },
};
