/**
 * smolagents memory steps (`agent.memory.get_full_steps()` or `RunResult.steps`): a TaskStep with
 * the task, PlanningSteps, and ActionSteps with model output, tool calls, observations and errors.
 * An ActionStep becomes the agent's step plus, when it has observations or an error, a tool step
 * with them, spoken by what produced them: a CodeAgent's step (it has a `code_action`) by its
 * `python_interpreter`, a ToolCallingAgent's by the tool it called (a managed agent is called as a
 * tool named after it; several different tools in one step speak as `tools`).
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  argumentsText,
  isObject,
  textOf,
  toolSpeaker,
  validate,
  type TraceFormat,
} from '../format.js';
import type { RawInput } from '../read-input.js';
import { isoOfMillis } from '../spans.js';
import { callsText } from '../step-text.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'smolagents';

const stepSchema = z.object({
  task: z.string().nullish(),
  plan: z.string().nullish(),
  step_number: z.number().nullish(),
  timing: z.object({ start_time: z.number().nullish() }).nullish(),
  model_output: z.unknown().optional(),
  tool_calls: z
    .array(
      z.object({
        id: z.string().nullish(),
        function: z.object({ name: z.string(), arguments: z.unknown().optional() }),
      }),
    )
    .nullish(),
  code_action: z.string().nullish(),
  observations: z.string().nullish(),
  error: z
    .union([z.object({ type: z.string().nullish(), message: z.string().nullish() }), z.string()])
    .nullish(),
  action_output: z.unknown().optional(),
  final_answer: z.unknown().optional(),
  output: z.unknown().optional(),
});

function stepList(input: RawInput): { list: unknown[]; agent: string } | undefined {
  if (input.kind !== 'json') return undefined;
  const { value } = input;
  const looksLikeStep = (item: unknown) =>
    isObject(item) &&
    ('step_number' in item || 'model_output' in item || ('task' in item && 'task_images' in item));
  if (Array.isArray(value) && value.some(looksLikeStep)) return { list: value, agent: 'agent' };
  if (isObject(value) && Array.isArray(value.steps) && value.steps.some(looksLikeStep)) {
    return {
      list: value.steps,
      agent: typeof value.agent_name === 'string' ? value.agent_name : 'agent',
    };
  }
  return undefined;
}

export const smolagentsFormat: TraceFormat = {
  name: NAME,
  description: 'smolagents memory steps (TaskStep, PlanningStep, ActionStep)',
  detect(input) {
    return stepList(input) !== undefined;
  },
  parse(input, context) {
    const found = stepList(input);
    if (!found)
      throw new TraceFormatError(context.file, 'expected smolagents steps', { format: NAME });
    const steps: DraftStep[] = [];
    let question: string | undefined;
    found.list.forEach((raw, index) => {
      const step = validate(stepSchema, raw, {
        file: context.file,
        format: NAME,
        prefix: `steps[${index}]`,
      });
      const timestamp = step.timing?.start_time
        ? isoOfMillis(step.timing.start_time * 1000)
        : undefined;
      const base: Partial<DraftStep> = timestamp ? { timestamp } : {};
      if (step.task) {
        question ??= step.task;
        steps.push({ ...base, speaker: 'human', role: 'human', content: step.task });
      } else if (step.plan) {
        steps.push({ ...base, speaker: found.agent, role: 'agent', content: step.plan });
      } else if (step.step_number !== null && step.step_number !== undefined) {
        const calls = (step.tool_calls ?? []).map((call) => ({
          ...(call.id ? { id: call.id } : {}),
          name: call.function.name,
          arguments: argumentsText(call.function.arguments),
        }));
        steps.push({
          ...base,
          speaker: found.agent,
          role: 'agent',
          // A turn that only calls tools (a ToolCallingAgent's model output is often empty) reads
          // as its calls, as in every other format.
          content: textOf(step.model_output) || callsText(calls),
          toolCalls: calls,
        });
        const error =
          typeof step.error === 'string'
            ? step.error
            : step.error
              ? [step.error.type, step.error.message].filter(Boolean).join(': ')
              : '';
        if (step.observations || error) {
          const called = step.code_action ? [] : calls.map((call) => call.name);
          steps.push({
            ...base,
            speaker: toolSpeaker(called) ?? 'python_interpreter',
            role: 'tool',
            content: [step.observations ?? '', error ? `[error] ${error}` : '']
              .filter(Boolean)
              .join('\n'),
            ...(error ? { error } : {}),
          });
        }
      } else if (step.final_answer !== undefined || step.output !== undefined) {
        steps.push({
          ...base,
          speaker: found.agent,
          role: 'agent',
          content: `Final answer: ${textOf(step.final_answer ?? step.output)}`,
        });
      }
    });
    requireSteps(steps, context.file, NAME, 'steps');
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
