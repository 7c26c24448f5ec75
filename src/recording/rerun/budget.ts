/**
 * What a rerun may spend: model calls (`--max-calls`) and estimated dollars (`--max-cost`), over all
 * its runs. Each call is checked before it goes upstream, against the calls made so far and the cost
 * of the replies recorded so far (tokens the upstream reported × the model's price,
 * src/llm/prices.ts); past either bound the call is refused, the run that hit it is kept without an
 * outcome, and no run starts after it. A reply still on its way when the bound is reached is paid
 * for: the cost may pass `--max-cost` by the calls in flight. A reply whose upstream reported no
 * tokens (a streamed Chat Completion without `stream_options.include_usage`) costs nothing here;
 * such calls are counted (`unmetered`) so that the user is told.
 */
import { costOf, priceOf, type Price } from '../../llm/prices.js';
import type { Trace } from '../../trace/model.js';
import type { Answer, Responder } from '../proxy/types.js';

/** The bounds, and prices that override the built-in table. */
export interface BudgetLimits {
  maxCalls?: number;
  maxCostUsd?: number;
  prices?: Record<string, Price>;
}

/** Which bound stopped the rerun. */
export type BudgetSpent = 'calls' | 'cost';

/** `provider:model` a recorded model is priced as: Claude and Gemini by their names, else OpenAI. */
export function pricedAs(model: string): { provider: string; model: string } {
  const provider = /^claude/i.test(model)
    ? 'anthropic'
    : /^gemini/i.test(model)
      ? 'google'
      : 'openai';
  return { provider, model };
}

/** Counts calls and cost over every run of a rerun, and refuses calls past either bound. */
export class RerunBudget {
  calls = 0;
  spent: BudgetSpent | undefined;
  /** Each run's estimated cost so far, by run id. */
  private readonly costs = new Map<string, number>();
  /** Each run's model calls whose upstream reported no tokens, by run id. */
  private readonly unmeteredCalls = new Map<string, number>();
  /** Models with no known price: their calls cost nothing here. */
  readonly unpriced = new Set<string>();

  constructor(private readonly limits: BudgetLimits = {}) {}

  /** Estimated dollars over every run so far. */
  get costUsd(): number {
    let total = 0;
    for (const cost of this.costs.values()) total += cost;
    return Number(total.toFixed(6));
  }

  /** Model calls over every run whose upstream reported no tokens: their cost is unknown. */
  get unmetered(): number {
    let total = 0;
    for (const calls of this.unmeteredCalls.values()) total += calls;
    return total;
  }

  /** The cost of one run so far. */
  costOfRun(runId: string): number {
    return this.costs.get(runId) ?? 0;
  }

  /** Notes a run's recorded replies (the recorder's `decorate` hook, called as the run grows). */
  noteRun(trace: Trace): Trace {
    let cost = 0;
    let unmetered = 0;
    for (const step of trace.steps) {
      const span = step.span;
      if (!span?.model) continue;
      if (span.inputTokens === undefined && span.outputTokens === undefined) {
        unmetered += 1;
        continue;
      }
      const price = priceOf(pricedAs(span.model), this.limits.prices);
      if (!price) this.unpriced.add(span.model);
      cost += costOf(price, span.inputTokens ?? 0, span.outputTokens ?? 0) ?? 0;
    }
    this.costs.set(trace.id, cost);
    this.unmeteredCalls.set(trace.id, unmetered);
    return trace;
  }

  /** A responder for one run: forwards each call upstream while neither bound is reached. */
  responder(counter: { calls: number; refused: boolean }): Responder {
    return {
      answer: (): Answer | undefined => {
        const { maxCalls, maxCostUsd } = this.limits;
        if (maxCalls !== undefined && this.calls >= maxCalls) this.spent ??= 'calls';
        else if (maxCostUsd !== undefined && this.costUsd >= maxCostUsd) this.spent ??= 'cost';
        if (this.spent) {
          counter.refused = true;
          return {
            kind: 'refuse',
            status: 429,
            message:
              this.spent === 'calls'
                ? `faultline rerun: the call budget of ${maxCalls} calls is spent`
                : `faultline rerun: the cost budget of $${maxCostUsd} is spent ($${this.costUsd.toFixed(4)} estimated)`,
          };
        }
        this.calls += 1;
        counter.calls += 1;
        return undefined;
      },
    };
  }
}
