/**
 * AutoGen / AG2 logs: 0.2 group-chat message lists (`GroupChat.messages`,
 * `ChatResult.chat_history`, with `tool_calls` and `tool_responses`), AutoGen 0.4 AgentChat
 * `TaskResult` / `run_stream` messages (discriminated by `type`, speaker in `source`), and the
 * 0.4 core event log (`LLMCall`, `ToolCall`, `Message` records, JSON Lines).
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  parseJsonOr,
  openAiToolCalls,
  completionMessage,
  argumentsText,
  isObject,
  itemPosition,
  JSON_LINES,
  textOf,
  toolSpeaker,
  validate,
  type ImportContext,
  type TraceFormat,
} from '../format.js';
import { callsText } from '../step-text.js';
import type { RawInput } from '../read-input.js';
import { draftStepsFromMessages, requireSteps } from '../chat-messages.js';

const NAME = 'autogen';

const agentChatMessageSchema = z.object({
  type: z.string(),
  source: z.string(),
  content: z.unknown().nullish(),
  created_at: z.string().nullish(),
  tool_calls: z
    .array(
      z.object({ id: z.string().nullish(), name: z.string(), arguments: z.unknown().nullish() }),
    )
    .nullish(),
});

const functionCallSchema = z.object({
  id: z.string().nullish(),
  name: z.string(),
  arguments: z.unknown().nullish(),
});
const executionResultSchema = z.object({
  content: z.unknown().nullish(),
  name: z.string().nullish(),
  call_id: z.string().nullish(),
  is_error: z.boolean().nullish(),
});

const coreEventSchema = z.object({
  type: z.string(),
  agent_id: z.string().nullish(),
  sender: z.string().nullish(),
  response: z.unknown().nullish(),
  tool_name: z.string().nullish(),
  arguments: z.unknown().nullish(),
  result: z.unknown().nullish(),
  payload: z.unknown().nullish(),
});

const CORE_EVENT_TYPES = new Set([
  'LLMCall',
  'LLMStreamStart',
  'LLMStreamEnd',
  'ToolCall',
  'Message',
  'MessageDropped',
  'MessageHandlerException',
  'AgentConstruction',
]);
/** AgentChat events that carry no step of their own. */
const SKIPPED_AGENTCHAT = new Set(['ModelClientStreamingChunkEvent', 'UserInputRequestedEvent']);

function messagesOf(
  value: unknown,
): { field: string; list: unknown[]; stop?: unknown } | undefined {
  if (Array.isArray(value)) return { field: '', list: value };
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.messages))
    return { field: 'messages', list: value.messages, stop: value.stop_reason };
  if (Array.isArray(value.chat_history)) return { field: 'chat_history', list: value.chat_history };
  return undefined;
}

const isAgentChat = (item: unknown) =>
  isObject(item) && typeof item.type === 'string' && typeof item.source === 'string';
const isChatMessage = (item: unknown) =>
  isObject(item) && 'content' in item && ('role' in item || 'name' in item) && !('type' in item);
const isCoreEvent = (item: unknown) =>
  isObject(item) && typeof item.type === 'string' && CORE_EVENT_TYPES.has(item.type);

/** The agent part of an AutoGen 0.4 AgentId (`type/key`). */
function agentOfId(agentId: string | null | undefined): string {
  if (!agentId) return 'unknown';
  const type = agentId.split('/')[0] ?? agentId;
  return type.replace(/_[0-9a-f]{3,}$/i, '');
}

function agentChatSteps(list: unknown[], field: string, context: ImportContext): DraftStep[] {
  const steps: DraftStep[] = [];
  list.forEach((raw, index) => {
    const prefix = itemPosition(field, index);
    const message = validate(agentChatMessageSchema, raw, {
      file: context.file,
      format: NAME,
      prefix,
    });
    if (SKIPPED_AGENTCHAT.has(message.type)) return;
    const step: DraftStep = { speaker: message.source, content: '' };
    if (message.created_at) step.timestamp = message.created_at;
    if (message.type === 'ToolCallRequestEvent') {
      const calls = validate(z.array(functionCallSchema), message.content ?? [], {
        file: context.file,
        format: NAME,
        prefix: `${prefix}.content`,
      });
      step.toolCalls = calls.map((call) => ({
        ...(call.id ? { id: call.id } : {}),
        name: call.name,
        arguments: argumentsText(call.arguments),
      }));
      step.content = callsText(step.toolCalls);
    } else if (message.type === 'ToolCallExecutionEvent') {
      const results = validate(z.array(executionResultSchema), message.content ?? [], {
        file: context.file,
        format: NAME,
        prefix: `${prefix}.content`,
      });
      step.role = 'tool';
      // The results are the tools' own words, spoken by the tool as in every other format (the
      // event's source is the agent that ran it, whose call is the step before).
      step.speaker = toolSpeaker(results.map((result) => result.name)) ?? step.speaker;
      step.toolResults = results.map((result) => ({
        ...(result.call_id ? { id: result.call_id } : {}),
        ...(result.name ? { name: result.name } : {}),
        content: textOf(result.content),
        ...(result.is_error ? { isError: true } : {}),
      }));
      step.content = step.toolResults.map((result) => result.content).join('\n');
      const failed = results.filter((result) => result.is_error);
      if (failed.length > 0) step.error = failed.map((result) => textOf(result.content)).join('\n');
    } else {
      step.content = textOf(message.content);
      if (message.type === 'HandoffMessage' || message.type === 'StopMessage')
        step.role = message.source === 'user' ? 'human' : 'agent';
    }
    steps.push(step);
  });
  return steps;
}

function responseText(response: unknown): { content: string; calls: DraftStep['toolCalls'] } {
  const message = completionMessage(response);
  const calls = openAiToolCalls(message);
  return { content: textOf(message.content) || callsText(calls), calls };
}

function coreEventSteps(records: unknown[], context: ImportContext): DraftStep[] {
  const events = records.map((raw, index) =>
    validate(coreEventSchema, raw, {
      file: context.file,
      format: NAME,
      prefix: itemPosition(JSON_LINES, index),
    }),
  );
  const hasModelCalls = events.some((event) => event.type === 'LLMCall');
  const steps: DraftStep[] = [];
  for (const event of events) {
    if (event.type === 'LLMCall') {
      const { content, calls } = responseText(event.response);
      steps.push({ speaker: agentOfId(event.agent_id), role: 'agent', content, toolCalls: calls });
    } else if (event.type === 'ToolCall') {
      const tool = event.tool_name ?? 'tool';
      steps.push({
        speaker: tool,
        role: 'tool',
        content: textOf(event.result),
        toolResults: [{ name: tool, content: textOf(event.result) }],
      });
    } else if (event.type === 'Message' && !hasModelCalls) {
      // Message events repeat what LLMCall already holds; they are the only source without it.
      const payload = parseJsonOr(event.payload);
      const source =
        isObject(payload) && typeof payload.source === 'string'
          ? payload.source
          : agentOfId(event.sender);
      steps.push({
        speaker: source,
        content: textOf(isObject(payload) ? payload.content : payload),
      });
    } else if (event.type === 'MessageHandlerException') {
      steps.push({
        speaker: agentOfId(event.agent_id),
        role: 'system',
        content: textOf(event.payload),
        error: textOf(event.payload),
      });
    }
  }
  return steps;
}

function detectKind(input: RawInput): 'chat' | 'agentchat' | 'core' | undefined {
  if (input.kind === 'jsonl')
    return input.records.length > 0 && input.records.every(isCoreEvent)
      ? 'core'
      : input.records.length > 0 && input.records.every(isAgentChat)
        ? 'agentchat'
        : undefined;
  if (input.kind !== 'json') return undefined;
  const found = messagesOf(input.value);
  if (!found || found.list.length === 0) return undefined;
  if (found.list.every(isAgentChat)) return 'agentchat';
  // A bare array of chat messages is the `messages` format; AG2 wraps it in messages/chat_history.
  if (found.field !== '' && found.list.every(isChatMessage)) return 'chat';
  return undefined;
}

export const autogenFormat: TraceFormat = {
  name: NAME,
  description:
    'AutoGen/AG2 group chats (0.2), AgentChat TaskResult messages and core event logs (0.4)',
  detect(input) {
    return detectKind(input) !== undefined;
  },
  parse(input, context) {
    const kind = detectKind(input);
    let steps: DraftStep[];
    let metadata: Record<string, unknown> = {};
    if (kind === 'core' && input.kind === 'jsonl') {
      steps = coreEventSteps(input.records, context);
    } else if (kind === 'agentchat') {
      const found =
        input.kind === 'jsonl'
          ? { field: JSON_LINES, list: input.records }
          : messagesOf(input.kind === 'json' ? input.value : undefined)!;
      steps = agentChatSteps(found.list, found.field, context);
      const stop = 'stop' in found ? found.stop : undefined;
      if (typeof stop === 'string') metadata = { stopReason: stop };
    } else if (kind === 'chat' && input.kind === 'json') {
      const found = messagesOf(input.value)!;
      steps = draftStepsFromMessages(found.list, {
        file: context.file,
        format: NAME,
        field: found.field,
        speaker: 'name-then-role',
      });
    } else {
      throw new TraceFormatError(context.file, 'not an AutoGen message list or event log', {
        format: NAME,
      });
    }
    requireSteps(steps, context.file, NAME, 'messages');
    const firstHuman = steps.find((step) => step.speaker === 'user' || step.role === 'human');
    return [
      buildTrace({
        id: context.id,
        format: NAME,
        source: context.file,
        ...(firstHuman?.content ? { question: firstHuman.content } : {}),
        steps,
        metadata,
      }),
    ];
  },
};
