/**
 * One LLM method run on one trace: asks the model, reads replies (one retry when unreadable),
 * and adds up calls, tokens, cost and warnings for the result.
 */
import type { z } from 'zod';
import { costFor, type GenerateRequest, type ModelClient } from '../../llm/client.js';
import type { Trace } from '../../trace/model.js';
import type { Attribution, AttributeOptions, Usage } from '../method.js';
import { tokenCount } from '../../llm/tokens.js';
import { renderLog, RESERVED_TOKENS } from './log-view.js';
import { RETRY_SUFFIX, SYSTEM_PROMPT } from './prompts.js';

/** What a runner is given besides the trace: the method's settings and the model's temperature. */
export interface LlmRunOptions extends AttributeOptions {
  temperature?: number;
}

/** One method's logic: a trace and a model client in, an attribution out. */
export type LlmRunner = (
  trace: Trace,
  client: ModelClient,
  options: LlmRunOptions,
) => Promise<Attribution>;

/** A reply that could not be read even after the retry. */
export class UnreadableReply {
  constructor(readonly raw: string) {}
}

/** Calls, tokens and warnings of one method run. */
export class LlmSession {
  readonly usage: Usage = { calls: 0, inputTokens: 0, outputTokens: 0 };
  readonly warnings: string[] = [];
  /** Calls whose log had to be shortened to fit the context. */
  shortened = 0;
  private readonly warningKinds = new Set<string>();

  constructor(
    readonly client: ModelClient,
    readonly trace: Trace,
  ) {}

  /**
   * The log of some steps, shortened (with a warning) so that it, `header` and the rest of the
   * prompt fit the model's context with room for the reply.
   */
  log(indices: readonly number[], header: string): string {
    const provider = this.client.spec.provider;
    const budget = Math.max(
      0,
      this.client.contextTokens - RESERVED_TOKENS - tokenCount(header, provider).tokens,
    );
    const { text, warning } = renderLog(this.trace, indices, budget, provider);
    if (warning) {
      this.shortened += 1;
      // One warning per kind of cut, however many calls shortened the log.
      const kind = warning.replace(/\d+/g, 'N');
      if (!this.warningKinds.has(kind)) {
        this.warningKinds.add(kind);
        this.warnings.push(warning);
      }
    }
    return text;
  }

  /** Asks and parses; retries once when the reply cannot be read; UnreadableReply after that. */
  async ask<Result>(
    prompt: string,
    schema: z.ZodType,
    schemaName: string,
    parse: (text: string) => Result | undefined,
  ): Promise<Result | UnreadableReply> {
    let raw = '';
    for (const attempt of [prompt, prompt + RETRY_SUFFIX]) {
      const text = await this.send({ system: SYSTEM_PROMPT, prompt: attempt, schema, schemaName });
      const parsed = parse(text);
      if (parsed !== undefined) return parsed;
      raw = text;
    }
    return new UnreadableReply(raw);
  }

  /** Sends one request and counts it (a cached reply costs no call); the reply's text. */
  async send(request: GenerateRequest): Promise<string> {
    const reply = await this.client.generate(request);
    if (!reply.cached) {
      this.usage.calls += 1;
      this.usage.inputTokens += reply.inputTokens;
      this.usage.outputTokens += reply.outputTokens;
    }
    return reply.text;
  }

  /** Finishes a result with usage, cost and warnings. */
  finish(result: Omit<Attribution, 'usage' | 'model'>): Attribution {
    const cost = costFor(this.client, this.usage.inputTokens, this.usage.outputTokens);
    const out: Attribution = {
      ...result,
      model: `${this.client.spec.provider}:${this.client.spec.model}`,
      usage: {
        ...this.usage,
        ...(cost === undefined ? {} : { costUsd: cost }),
        ...(this.shortened > 0 ? { shortenedCalls: this.shortened } : {}),
      },
    };
    if (this.warnings.length > 0) out.warnings = [...this.warnings];
    return out;
  }

  /** The result for an unreadable reply: marked, with the raw text, never a guess. */
  unparsed(method: string, reply: UnreadableReply, what: string): Attribution {
    return this.finish({
      agent: null,
      step: null,
      reason: `The model's ${what} could not be read after one retry; see raw.`,
      method,
      unparsed: true,
      raw: reply.raw,
    });
  }
}
