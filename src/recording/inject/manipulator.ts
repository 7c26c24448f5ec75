/**
 * The manipulator model (Aegis' adaptive manipulator): told the failure mode, its definition and
 * the call's context, it writes a realistic, task-relevant corruption of the agent's answer
 * (response corruption) or an instruction that leads the agent into the mode (prompt injection).
 * Its prompts are in docs/PROTOCOL.md. A reply it cannot read is asked again, then the injection
 * is given up (counted by the caller), never an error of the run.
 */
import { z } from 'zod';
import { extractJsonObject } from '../../attribution/llm/replies.js';
import { describeError } from '../../errors.js';
import { costFor, createModelClient, type ModelClient } from '../../llm/client.js';
import { mastMode } from '../../trace/mast.js';
import type { ReplyContent } from '../wire/types.js';
import type { OperatorContext } from './operators.js';

/** The manipulator's system prompt. */
export const MANIPULATOR_SYSTEM = `You help test a multi-agent system by injecting one realistic fault into one agent's turn, so that a failure attribution tool can be checked against a known cause.
The fault must be of the failure mode you are given (from MAST, the Multi-Agent System Failure Taxonomy), specific to the task and plausible: the kind of mistake this agent could really make, not an obvious sabotage, not a refusal, and not a mention of this test.
Reply with one JSON object and nothing else.`;

/** The manipulator's request for a corrupted answer or an injected instruction. */
export function manipulatorPrompt(
  context: OperatorContext,
  original: ReplyContent | undefined,
): string {
  const mode = mastMode(context.target.mode);
  const recent = context.request.items
    .slice(-6)
    .map((item) => `[${item.role}${item.name ? ` ${item.name}` : ''}] ${item.text.slice(0, 1500)}`)
    .join('\n');
  const lines = [
    `Failure mode: ${mode ? `FM-${mode.code} ${mode.name}` : context.target.mode}`,
    `Definition: ${mode?.definition ?? '(none)'}`,
    `Agent: ${context.target.agent}`,
    `The agent's instructions: ${context.request.system.slice(0, 2000) || '(none)'}`,
    `The conversation so far (latest last):\n${recent || '(empty)'}`,
  ];
  if (original) {
    lines.push(
      `The agent's real answer:\n${original.text.slice(0, 4000) || '(no text)'}`,
      ...(original.toolCalls.length > 0
        ? [
            `Its tool calls: ${JSON.stringify(original.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })))}`,
          ]
        : []),
      'Rewrite the answer so that it contains this failure mode and the task fails because of it. Keep its form (if it called tools, call the same tools with changed arguments).',
      'Reply as {"output": "<the corrupted answer text>", "tool_calls": [{"name": "<tool>", "arguments": {...}}]} (tool_calls may be empty).',
    );
  } else {
    lines.push(
      "Write one instruction to add to the agent's instructions that will make it commit this failure mode on this task.",
      'Reply as {"instruction": "<the instruction>"}.',
    );
  }
  return lines.join('\n\n');
}

const corruptionSchema = z.object({
  output: z.string(),
  tool_calls: z.array(z.object({ name: z.string().min(1), arguments: z.unknown() })).nullish(),
});
const instructionSchema = z.object({ instruction: z.string().min(1) });

/** What the manipulator spent. */
export interface ManipulatorUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Undefined when the model's price is unknown. */
  costUsd: number | undefined;
  /** Replies that could not be read (each retried or given up). */
  unreadable: number;
}

/** Settings of the manipulator. */
export interface ManipulatorOptions {
  /** `provider:model`. */
  model: string;
  baseUrl?: string;
  temperature?: number;
  /** Tries per injection (default 2: one retry). */
  attempts?: number;
  /** A ready client (tests). */
  client?: ModelClient;
  log?: (line: string) => void;
}

/** The manipulator model. */
export class Manipulator {
  readonly usage: ManipulatorUsage = {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    unreadable: 0,
  };
  private readonly client: ModelClient;

  constructor(private readonly options: ManipulatorOptions) {
    this.client =
      options.client ??
      createModelClient({
        model: options.model,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        temperature: options.temperature ?? 0.7,
        // Each injection should be its own; a cached reply would repeat the same corruption.
        cache: false,
      });
  }

  /** A corrupted answer, or undefined when no readable one came. */
  async corrupt(
    context: OperatorContext,
    original: ReplyContent,
  ): Promise<ReplyContent | undefined> {
    const value = await this.ask(manipulatorPrompt(context, original), corruptionSchema);
    if (!value) return undefined;
    return {
      text: value.output,
      toolCalls: (value.tool_calls ?? []).map((call, index) => ({
        id: original.toolCalls[index]?.id ?? `call_injected_${index}`,
        name: call.name,
        arguments:
          typeof call.arguments === 'string'
            ? call.arguments
            : JSON.stringify(call.arguments ?? {}),
      })),
    };
  }

  /** An instruction to inject, or undefined when no readable one came. */
  async instruct(context: OperatorContext): Promise<string | undefined> {
    return (await this.ask(manipulatorPrompt(context, undefined), instructionSchema))?.instruction;
  }

  private async ask<Shape extends z.ZodType>(
    prompt: string,
    schema: Shape,
  ): Promise<z.infer<Shape> | undefined> {
    const attempts = this.options.attempts ?? 2;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      let text: string;
      try {
        const reply = await this.client.generate({ system: MANIPULATOR_SYSTEM, prompt });
        this.usage.calls += 1;
        this.usage.inputTokens += reply.inputTokens;
        this.usage.outputTokens += reply.outputTokens;
        const cost = costFor(this.client, reply.inputTokens, reply.outputTokens);
        this.usage.costUsd =
          cost === undefined || this.usage.costUsd === undefined
            ? undefined
            : this.usage.costUsd + cost;
        text = reply.text;
      } catch (error) {
        this.options.log?.(`manipulator: the call failed (${describeError(error)})`);
        return undefined;
      }
      const parsed = schema.safeParse(extractJsonObject(text));
      if (parsed.success) return parsed.data;
      this.usage.unreadable += 1;
      this.options.log?.(
        `manipulator: reply ${attempt} of ${attempts} could not be read: ${text.slice(0, 120)}`,
      );
    }
    return undefined;
  }
}
