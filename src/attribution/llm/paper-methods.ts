/**
 * All-at-Once, Step-by-Step and Binary Search exactly as the Who&When paper's code runs them
 * (`--prompts paper`; Lib/utils.py of ag2ai/Agents_Failure_Attribution, commit f4d2b6d, MIT,
 * Copyright (c) 2025 Ming Yin): its prompts (paper-prompts.ts), its request settings (no schema,
 * `max_tokens` 1024, no temperature unless one is set), every step a candidate (the task's too),
 * Step-by-Step stopping at the first reply starting "1. Yes", Binary Search's ranges and midpoint
 * (`mid = start + (end - start) // 2`; "upper half" is `start..mid`, "lower half"
 * `min(mid + 1, end)..end`), no retry, and no answer where the reference has no reply (an empty
 * one, or here a prompt too long for the model's context, which the reference would have sent and
 * seen fail). Each method walks twice over the same replies: by the paper's reading (the result)
 * and by faultline's tolerant one (its `lenient` field); a request asked twice in a run is sent
 * once, so the second walk calls the model only where the readings part.
 */
import type { ModelClient } from '../../llm/client.js';
import { tokenCount } from '../../llm/tokens.js';
import type { Trace } from '../../trace/model.js';
import type { Attribution, LenientReading } from '../method.js';
import {
  PAPER_SYSTEM,
  paperAllAtOncePrompt,
  paperSegmentPrompt,
  paperStepPrompt,
} from './paper-prompts.js';
import {
  readPaperAttribution,
  readPaperHalf,
  readPaperVerdict,
  readTolerantAttribution,
  readTolerantHalf,
  readTolerantVerdict,
  type PaperHalf,
} from './paper-replies.js';
import { LlmSession, type LlmRunner, type LlmRunOptions } from './session.js';

/** The reply tokens the reference asks for (inference.py's `--max_tokens` default). */
export const PAPER_MAX_TOKENS = 1024;

/** An answer of one reading. */
type Answer = LenientReading & { raw?: string };

/** Which reading a walk follows. */
type Reading = 'paper' | 'tolerant';

/** Asks the model as the reference does, remembering each prompt's reply for the run. */
class PaperAsker {
  private readonly replies = new Map<string, Promise<string | undefined>>();

  constructor(
    readonly session: LlmSession,
    private readonly temperature: number | null,
  ) {}

  /** The reply, trimmed as the reference trims it; undefined where the reference gets none. */
  ask(system: string, prompt: string): Promise<string | undefined> {
    const key = `${system}\n${prompt}`;
    let reply = this.replies.get(key);
    if (!reply) {
      reply = this.send(system, prompt);
      this.replies.set(key, reply);
    }
    return reply;
  }

  private async send(system: string, prompt: string): Promise<string | undefined> {
    const { client } = this.session;
    const tokens =
      tokenCount(system, client.spec.provider).tokens +
      tokenCount(prompt, client.spec.provider).tokens;
    if (tokens + PAPER_MAX_TOKENS > client.contextTokens) {
      this.session.warnings.push(
        `A paper prompt of about ${tokens} tokens does not fit the model's ${client.contextTokens}-token context with ${PAPER_MAX_TOKENS} for the reply; it was not sent, and the method stopped there without an answer, as the reference does when a call fails.`,
      );
      return undefined;
    }
    const text = await this.session.send({
      system,
      prompt,
      maxOutputTokens: PAPER_MAX_TOKENS,
      temperature: this.temperature,
    });
    // The reference stops on an empty reply as on a failed call.
    return text.trim() || undefined;
  }
}

/** The answer where the reference got no reply. */
const NO_REPLY: Answer = {
  agent: null,
  step: null,
  reason:
    'The model gave no reply (an empty one, or the prompt did not fit its context); the reference stops there without an answer.',
};

/** The answer naming step `index` and its agent. */
function atStep(trace: Trace, index: number, reason: string): Answer {
  return { agent: trace.steps[index]!.agent, step: index, reason };
}

/** A reply this reading cannot read: no answer, marked, with the reply (the result's `raw`). */
function unreadable(raw: string, what: string): Answer {
  return {
    agent: null,
    step: null,
    reason: `The ${what} could not be read.`,
    unparsed: true,
    raw,
  };
}

/** The result: the paper's reading, with the tolerant one beside it. */
function finish(session: LlmSession, method: string, paper: Answer, tolerant: Answer): Attribution {
  return session.finish({
    agent: paper.agent,
    step: paper.step,
    reason: paper.reason,
    method,
    ...(paper.unparsed ? { unparsed: true, raw: paper.raw ?? '' } : {}),
    prompts: 'paper',
    lenient: {
      agent: tolerant.agent,
      step: tolerant.step,
      reason: tolerant.reason,
      ...(tolerant.unparsed ? { unparsed: true } : {}),
    },
  });
}

/** A run's session, and its asker with the run's temperature. */
function begin(trace: Trace, client: ModelClient, options: LlmRunOptions) {
  const session = new LlmSession(client, trace);
  // The reference sends no temperature: the provider's default, unless one is set.
  return { session, asker: new PaperAsker(session, options.temperature ?? null) };
}

/** Runs the paper's All-at-Once on a trace. */
export const runPaperAllAtOnce: LlmRunner = async (trace, client, options) => {
  const { session, asker } = begin(trace, client, options);
  const reply = await asker.ask(
    PAPER_SYSTEM.allAtOnce,
    paperAllAtOncePrompt(trace, options.useGroundTruth !== false),
  );
  if (reply === undefined) return finish(session, 'all-at-once', NO_REPLY, NO_REPLY);
  const read = readPaperAttribution(reply);
  let paper: Answer;
  if (!read) paper = unreadable(reply, 'reply (no "Agent Name:" and "Step Number:")');
  else if (read.step >= trace.steps.length)
    // Kept as read, but a step outside the log names none.
    paper = {
      agent: read.agent,
      step: null,
      reason: `${read.reason} (The reply names step ${read.step}; the log has ${trace.steps.length} steps.)`,
    };
  else paper = read;
  const tolerant = readTolerantAttribution(reply, trace);
  return finish(session, 'all-at-once', paper, tolerant ?? unreadable(reply, 'reply'));
};

/** Step-by-Step by one reading: every step from the first, until one is judged an error. */
async function judgeEachStep(
  asker: PaperAsker,
  trace: Trace,
  options: LlmRunOptions,
  reading: Reading,
): Promise<Answer> {
  const limit = Math.min(trace.steps.length, options.maxCalls ?? trace.steps.length);
  for (let index = 0; index < limit; index += 1) {
    const reply = await asker.ask(
      PAPER_SYSTEM.stepByStep,
      paperStepPrompt(trace, index, options.useGroundTruth !== false),
    );
    if (reply === undefined) return NO_REPLY;
    if (reading === 'paper') {
      const { verdict, reason } = readPaperVerdict(reply);
      // A "no" and an unexpected reply alike go on to the next step, as in the reference.
      if (verdict === 'yes') return atStep(trace, index, reason);
    } else {
      const verdict = readTolerantVerdict(reply);
      if (!verdict) return unreadable(reply, `verdict on step ${index}`);
      if (verdict.error)
        return atStep(trace, index, verdict.reason || `Step ${index} was judged an error.`);
    }
  }
  return {
    agent: null,
    step: null,
    reason: `No step was judged an error (${limit < trace.steps.length ? `the first ${limit} of ${trace.steps.length}` : `all ${trace.steps.length}`} steps were asked about).`,
  };
}

/** Runs the paper's Step-by-Step on a trace. */
export const runPaperStepByStep: LlmRunner = async (trace, client, options) => {
  const { session, asker } = begin(trace, client, options);
  const paper = await judgeEachStep(asker, trace, options, 'paper');
  const tolerant = await judgeEachStep(asker, trace, options, 'tolerant');
  return finish(session, 'step-by-step', paper, tolerant);
};

/**
 * The reference's coin for a reply naming neither half, made repeatable: a bit of a hash of the
 * trace and the range (the reference calls `random.randint(0, 1)`; 0 is the upper half).
 */
function coin(trace: Trace, start: number, end: number): PaperHalf {
  let hash = 0x811c9dc5;
  for (const char of `${trace.id}|${start}|${end}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % 2 === 0 ? 'upper' : 'lower';
}

/** Binary Search by one reading, over every step. */
async function halveSegments(
  asker: PaperAsker,
  trace: Trace,
  options: LlmRunOptions,
  reading: Reading,
): Promise<Answer> {
  let start = 0;
  let end = trace.steps.length - 1;
  const path: string[] = [];
  let coins = 0;
  while (start < end) {
    const middle = start + Math.floor((end - start) / 2);
    const reply = await asker.ask(
      PAPER_SYSTEM.binarySearch,
      paperSegmentPrompt(trace, start, middle, end, options.useGroundTruth !== false),
    );
    if (reply === undefined) return NO_REPLY;
    let half = reading === 'paper' ? readPaperHalf(reply) : readTolerantHalf(reply);
    let byCoin = false;
    if (half === undefined) {
      if (reading === 'tolerant')
        return unreadable(
          reply,
          `choice between steps ${start}-${middle} and ${middle + 1}-${end}`,
        );
      half = coin(trace, start, end);
      byCoin = true;
      coins += 1;
    }
    path.push(
      `${half} half of ${start}-${end}${byCoin ? ' (the reply named neither: a coin chose)' : ''}`,
    );
    if (half === 'upper') end = middle;
    else start = Math.min(middle + 1, end);
  }
  if (coins > 0)
    asker.session.warnings.push(
      `${coins} repl${coins === 1 ? 'y' : 'ies'} named neither half, and a coin chose, as the reference does (a coin seeded by the trace and range, so a rerun takes the same path).`,
    );
  return atStep(trace, start, path.length > 0 ? path.join(' → ') : 'Only one step.');
}

/** Runs the paper's Binary Search on a trace. */
export const runPaperBinarySearch: LlmRunner = async (trace, client, options) => {
  const { session, asker } = begin(trace, client, options);
  const paper = await halveSegments(asker, trace, options, 'paper');
  const tolerant = await halveSegments(asker, trace, options, 'tolerant');
  return finish(session, 'binary-search', paper, tolerant);
};
