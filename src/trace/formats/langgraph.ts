/**
 * LangSmith / LangGraph run trees: `{runs: [...]}` (flat with `parent_run_id`, or nested with
 * `child_runs`), a bare list, or a single root run. LangGraph nodes (`extra.metadata.langgraph_node`
 * equal to the run name) are agents; `llm` runs speak for them; `tool` runs are tool steps.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace } from '../build-trace.js';
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
import { callsText } from '../step-text.js';
import type { ToolCall } from '../model.js';
import type { RawInput } from '../read-input.js';
import {
  sortKeyOfTime,
  stepsFromSpans,
  setModelUsage,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'langgraph';

interface Run {
  id: string;
  parent_run_id?: string | null | undefined;
  name: string;
  run_type: string;
  start_time?: string | null | undefined;
  end_time?: string | null | undefined;
  prompt_tokens?: number | null | undefined;
  completion_tokens?: number | null | undefined;
  dotted_order?: string | null | undefined;
  error?: string | null | undefined;
  inputs?: unknown;
  outputs?: unknown;
  extra?: { metadata?: Record<string, unknown> | null | undefined } | null | undefined;
  child_runs?: Run[] | null | undefined;
}

const runSchema: z.ZodType<Run> = z.lazy(() =>
  z.object({
    id: z.string(),
    parent_run_id: z.string().nullish(),
    name: z.string(),
    run_type: z.string(),
    start_time: z.string().nullish(),
    end_time: z.string().nullish(),
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
    dotted_order: z.string().nullish(),
    error: z.string().nullish(),
    inputs: z.unknown().optional(),
    outputs: z.unknown().optional(),
    extra: z.object({ metadata: z.record(z.string(), z.unknown()).nullish() }).nullish(),
    child_runs: z.array(runSchema).nullish(),
  }),
);

const isRun = (item: unknown) =>
  isObject(item) && typeof item.run_type === 'string' && typeof item.id === 'string';

function rootList(input: RawInput): { field: string; list: unknown[] } | undefined {
  if (input.kind === 'jsonl')
    return input.records.every(isRun) ? { field: JSON_LINES, list: input.records } : undefined;
  if (input.kind !== 'json') return undefined;
  const { value } = input;
  if (Array.isArray(value))
    return value.length > 0 && value.every(isRun) ? { field: '', list: value } : undefined;
  if (isObject(value) && Array.isArray(value.runs)) return { field: 'runs', list: value.runs };
  if (isRun(value)) return { field: '', list: [value] };
  return undefined;
}

/** The AI messages of a run's outputs (`messages`, or LLM `generations`). */
function aiOutput(outputs: unknown): { text: string; toolCalls: ToolCall[] } {
  const messages: Record<string, unknown>[] = [];
  if (isObject(outputs)) {
    if (Array.isArray(outputs.messages)) messages.push(...outputs.messages.filter(isObject));
    if (Array.isArray(outputs.generations)) {
      for (const generation of outputs.generations.flat()) {
        if (isObject(generation))
          messages.push(
            isObject(generation.message)
              ? isObject(generation.message.kwargs)
                ? generation.message.kwargs
                : generation.message
              : { type: 'ai', content: generation.text },
          );
      }
    }
  }
  const ai = messages.filter(
    (message) =>
      message.type === 'ai' || message.role === 'assistant' || message.type === 'AIMessage',
  );
  const toolCalls = ai.flatMap((message) =>
    (Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []).map((call) => ({
      ...(typeof call.id === 'string' ? { id: call.id } : {}),
      name: String(call.name ?? (isObject(call.function) ? call.function.name : 'unknown')),
      arguments: argumentsText(
        call.args ?? (isObject(call.function) ? call.function.arguments : undefined),
      ),
    })),
  );
  const text = ai
    .map((message) => textOf(message.content))
    .filter(Boolean)
    .join('\n');
  if (text || toolCalls.length > 0)
    return {
      text: text || callsText(toolCalls),
      toolCalls,
    };
  return {
    text:
      ai.length === 0 && outputs !== undefined && outputs !== null
        ? textOf(isObject(outputs) && 'output' in outputs ? outputs.output : outputs)
        : '',
    toolCalls,
  };
}

function collectRuns(list: unknown[], field: string, context: ImportContext): Run[] {
  const out: Run[] = [];
  const visit = (run: Run, parent?: string) => {
    out.push({ ...run, parent_run_id: run.parent_run_id ?? parent ?? null });
    for (const child of run.child_runs ?? []) visit(child, run.id);
  };
  list.forEach((raw, index) =>
    visit(
      validate(runSchema, raw, {
        file: context.file,
        format: NAME,
        prefix: itemPosition(field, index),
      }),
    ),
  );
  return out;
}

function neutral(run: Run): NeutralSpan {
  const node = run.extra?.metadata?.langgraph_node;
  const out: NeutralSpan = {
    id: run.id,
    start: sortKeyOfTime(run.start_time),
    end: sortKeyOfTime(run.end_time),
    kind: 'other',
    name: run.name,
    content: '',
  };
  // LangChain records the model of a model call as metadata.ls_model_name.
  setModelUsage(
    out,
    run.run_type === 'llm' ? run.extra?.metadata?.ls_model_name : undefined,
    run.prompt_tokens,
    run.completion_tokens,
  );
  if (run.start_time) out.timestamp = run.start_time;
  if (run.parent_run_id) out.parentId = run.parent_run_id;
  if (run.error) out.error = run.error;
  const output = aiOutput(run.outputs);
  if (run.run_type === 'llm') {
    Object.assign(out, { kind: 'llm', content: output.text, toolCalls: output.toolCalls });
  } else if (run.run_type === 'tool') {
    out.kind = 'tool';
    const args = isObject(run.inputs)
      ? argumentsText(run.inputs.input ?? run.inputs)
      : argumentsText(run.inputs);
    const result = isObject(run.outputs)
      ? textOf(run.outputs.output ?? run.outputs)
      : textOf(run.outputs);
    out.content = [`${run.name}(${args})`, result].filter(Boolean).join('\n');
    out.toolResults = [
      { name: run.name, content: result, ...(run.error ? { isError: true } : {}) },
    ];
  } else if (run.run_type === 'chain' && node === run.name) {
    Object.assign(out, { kind: 'agent', content: output.text, toolCalls: output.toolCalls });
  }
  return out;
}

export const langGraphFormat: TraceFormat = {
  name: NAME,
  description: 'LangSmith/LangGraph run trees (runs with child_runs, run_type, inputs, outputs)',
  detect(input) {
    const found = rootList(input);
    return found !== undefined && found.list.length > 0 && found.list.every(isRun);
  },
  parse(input, context) {
    const found = rootList(input);
    if (!found)
      throw new TraceFormatError(context.file, 'expected {"runs": [...]} or a run tree', {
        format: NAME,
      });
    const runs = collectRuns(found.list, found.field, context);
    const spans = runs.map(neutral);
    const steps = stepsFromSpans(spans);
    requireSteps(steps, context.file, NAME, 'runs');
    const root = runs.find((run) => !run.parent_run_id);
    const firstHuman =
      isObject(root?.inputs) && Array.isArray(root.inputs.messages)
        ? root.inputs.messages
            .filter(isObject)
            .find((message) => message.type === 'human' || message.role === 'user')
        : undefined;
    const question = firstHuman
      ? textOf(firstHuman.content)
      : isObject(root?.inputs) && typeof root.inputs.input === 'string'
        ? root.inputs.input
        : '';
    return [
      buildTrace({
        id: root?.id ?? context.id,
        format: NAME,
        source: context.file,
        ...(question ? { question } : {}),
        outcome: root?.error ? 'failure' : 'unknown',
        steps: withQuestionStep(question, steps),
      }),
    ];
  },
};
