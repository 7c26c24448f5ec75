/**
 * Per-step features of a canonical trace: position, role, signals in the step and around it,
 * overlap with the task and the expected answer. Every feature is a number that is defined for any
 * importer's output, so the model degrades gracefully where a format carries less.
 * The model never sees ids, file names or the question text itself, only derived quantities.
 */
import type { Step, Trace } from '../../trace/model.js';
import { FEATURE_NAMES, type FeatureName } from './feature-names.js';
import { NO_PHRASES, findPhrases, type PhraseHits } from './phrases.js';
import {
  EMPTY_OUTPUT,
  ERROR_OUTPUT,
  coverage,
  hasCode,
  hasUrl,
  isTermination,
  jaccard,
  numbersIn,
} from './text-signals.js';
import { readWords, wordsIn } from './tokens.js';

/** Role families recognised from agent names, independent of any one framework's spelling. */
const KIND_PATTERNS = {
  orchestrator: /orchestrat|manager|planner|supervisor|coordinator|triage|leader/i,
  verifier: /verif|valid|check|review|critic|quality|\bqa\b|tester|judge/i,
  web: /web|surf|brows|search|navigat|crawl|scrap/i,
  file: /file|document|reader|pdf/i,
  coder: /code|coder|python|program|debug|develop|engineer|script/i,
  assistant: /assistant/i,
} as const;

type Kind = keyof typeof KIND_PATTERNS;
const kindCache = new Map<string, Record<Kind, number>>();

/** Role families of an agent name (cached: names repeat on every step). */
function kindsOf(name: string): Record<Kind, number> {
  let kinds = kindCache.get(name);
  if (!kinds) {
    kinds = Object.fromEntries(
      Object.entries(KIND_PATTERNS).map(([kind, pattern]) => [kind, pattern.test(name) ? 1 : 0]),
    ) as Record<Kind, number>;
    if (kindCache.size > 10_000) kindCache.clear();
    kindCache.set(name, kinds);
  }
  return kinds;
}

/** A planner's progress review: Magentic-One's ledger and similar JSON self-assessments. */
const NO_PROGRESS = /"is_progress_being_made"\s*:\s*\{[^}]*"answer"\s*:\s*false/i;
const IN_LOOP = /"is_in_loop"\s*:\s*\{[^}]*"answer"\s*:\s*true/i;

/** Per-step text facts computed once and reused by neighbouring steps' features. */
interface StepFacts {
  /** The scanned content, and the same lower-cased. */
  text: string;
  lower: string;
  /** Hashes of its words (tokens.ts). */
  words: Set<number>;
  numbers: Set<string>;
  isErrorOutput: boolean;
  isEmptyOutput: boolean;
  isActor: boolean;
  /** A progress review (a planner's ledger), and whether it judges the run stalled or looping. */
  isReview: boolean;
  reviewStalled: boolean;
  reviewLoop: boolean;
  /** Phrase signals; only read in actor steps, where they describe what the agent did. */
  phrases: Readonly<PhraseHits>;
}

/** Longest content read per step: signals sit at the head and tail; this bounds cost on huge steps. */
const MAX_SCAN = 2_400;
/** How many earlier steps a step is compared with when looking for repetition. */
const SIMILARITY_WINDOW = 4;

function scanText(content: string): string {
  if (content.length <= MAX_SCAN) return content;
  return `${content.slice(0, MAX_SCAN / 2)}\n${content.slice(-MAX_SCAN / 2)}`;
}

const isActor = (step: Step) => step.role === 'agent';

/** Word sets feed similarity and overlap only; their head and tail are enough and keep them cheap. */
const WORD_WINDOW = { head: 1_200, tail: 300 };

function factsOf(step: Step): StepFacts {
  const text = scanText(step.content);
  const lower = text.toLowerCase();
  const toolLike = step.role === 'tool' || (step.toolResults?.length ?? 0) > 0;
  const actor = isActor(step);
  const { words, tokens } = readWords(lower, { tokens: actor, wordWindow: WORD_WINDOW });
  const phrases = tokens ? findPhrases(tokens) : NO_PHRASES;
  return {
    text,
    lower,
    words,
    numbers: numbersIn(text),
    isErrorOutput:
      (toolLike && ERROR_OUTPUT.test(text)) ||
      Boolean(step.error) ||
      (step.toolResults ?? []).some((result) => result.isError),
    isEmptyOutput: toolLike && EMPTY_OUTPUT.test(text.trim()),
    isActor: actor,
    isReview: actor && text.includes('is_progress_being_made'),
    reviewStalled: actor && (phrases.stalled || NO_PROGRESS.test(text)),
    reviewLoop: actor && IN_LOOP.test(text),
    phrases,
  };
}

/** The feature matrix of a trace: one row per step, columns in FEATURE_NAMES order. */
export function computeFeatures(trace: Trace): number[][] {
  const steps = trace.steps;
  const count = steps.length;
  const long = count > 15 ? 1 : 0;
  const facts = steps.map(factsOf);
  const questionWords = wordsIn(trace.question ?? '');
  const questionNumbers = numbersIn(trace.question ?? '');
  const answerNeedle = (trace.groundTruth ?? '').trim().toLowerCase();

  // The run's own final claim: numbers in the last actor step that are not in the task.
  const lastActor = [...facts.keys()]
    .reverse()
    .find((index) => facts[index]!.isActor && !/^\s*TERMINATE\s*$/.test(steps[index]!.content));
  const finalNumbers = new Set(
    [...(lastActor === undefined ? [] : facts[lastActor]!.numbers)].filter(
      (number) => !questionNumbers.has(number),
    ),
  );

  const firstError = facts.findIndex((fact) => fact.isErrorOutput);
  const errorCountAfter: number[] = new Array<number>(count).fill(0);
  for (let index = count - 2; index >= 0; index -= 1)
    errorCountAfter[index] =
      errorCountAfter[index + 1]! + (facts[index + 1]!.isErrorOutput ? 1 : 0);

  // The next actor step after each index, found in one backward pass (no quadratic scans).
  const nextActorAfter: (StepFacts | undefined)[] = new Array<StepFacts | undefined>(count);
  for (let index = count - 1, following: StepFacts | undefined; index >= 0; index -= 1) {
    nextActorAfter[index] = following;
    if (facts[index]!.isActor) following = facts[index];
  }

  // The next review verdict after each step, and the actor step that preceded the first stall.
  const nextReview: ({ stalled: boolean; loop: boolean } | undefined)[] = new Array(count);
  for (
    let index = count - 1, following: { stalled: boolean; loop: boolean } | undefined;
    index >= 0;
    index -= 1
  ) {
    nextReview[index] = following;
    if (facts[index]!.isReview || facts[index]!.reviewStalled || facts[index]!.reviewLoop) {
      following = { stalled: facts[index]!.reviewStalled, loop: facts[index]!.reviewLoop };
    }
  }
  const firstStall = facts.findIndex((fact) => fact.reviewStalled || fact.reviewLoop);
  let stallCause = -1;
  if (firstStall > 0) {
    for (let index = firstStall - 1; index >= 0; index -= 1) {
      if (facts[index]!.isActor && !/\(thought\)/i.test(steps[index]!.speaker)) {
        stallCause = index;
        break;
      }
    }
  }

  // How much of the run each agent speaks, and the final claim's own words (not the task's).
  const stepsOfAgent = new Map<string, number>();
  for (const step of steps)
    if (step.role === 'agent')
      stepsOfAgent.set(step.agent, (stepsOfAgent.get(step.agent) ?? 0) + 1);
  const mostActive = Math.max(0, ...stepsOfAgent.values());
  const finalWords = new Set(
    [...(lastActor === undefined ? [] : facts[lastActor]!.words)].filter(
      (word) => !questionWords.has(word),
    ),
  );
  // Where each word of the final claim first appears (final words exclude the task's words).
  const introducedAt = new Map<number, number>();
  for (const word of finalWords) {
    const first = facts.findIndex((fact) => fact.words.has(word));
    if (first !== -1) introducedAt.set(first, (introducedAt.get(first) ?? 0) + 1);
  }
  // The last step that does real work: not a bare TERMINATE, not a termination notice.
  let lastSubstantive = -1;
  for (let index = count - 1; index >= 0; index -= 1) {
    const step = steps[index]!;
    if (
      step.role === 'human' ||
      /^\s*TERMINATE\s*$/.test(step.content) ||
      /\((termination|final answer)/i.test(step.speaker)
    )
      continue;
    lastSubstantive = index;
    break;
  }

  const seenNumbers = new Set(questionNumbers);
  const lastStepOfAgent = new Map<string, number>();
  const turnsOfAgent = new Map<string, number>();
  let actorRank = 0;
  let firstActorSeen = false;
  let firstAfterErrorSeen = false;
  let answerSeen = false;
  const rows: number[][] = [];

  for (let index = 0; index < count; index += 1) {
    const step = steps[index]!;
    const fact = facts[index]!;
    const { text } = fact;
    const relative = count > 1 ? index / (count - 1) : 0;
    const turn = turnsOfAgent.get(step.agent) ?? 0;
    const ownPrevious = lastStepOfAgent.get(step.agent);
    const next = facts[index + 1];
    const nextNext = facts[index + 2];
    const nextActor = nextActorAfter[index];
    const name = step.agent;

    let novel = 0;
    let introducesFinal = 0;
    for (const number of fact.numbers) {
      if (!seenNumbers.has(number)) {
        novel += 1;
        if (finalNumbers.has(number)) introducesFinal += 1;
      }
    }
    const introducesWords = introducedAt.get(index) ?? 0;
    const previousSpeakers = [steps[index - 1]?.speaker ?? '', steps[index - 2]?.speaker ?? ''];
    const directedHere = previousSpeakers.some(
      (speaker) =>
        speaker.includes('->') && speaker.toLowerCase().includes(`-> ${name.toLowerCase()}`),
    );
    let maxSimilarity = 0;
    for (let earlier = Math.max(0, index - SIMILARITY_WINDOW); earlier < index; earlier += 1) {
      maxSimilarity = Math.max(maxSimilarity, jaccard(fact.words, facts[earlier]!.words));
    }
    const firstActor = fact.isActor && !firstActorSeen;
    const firstAfterFirstError =
      fact.isActor && firstError !== -1 && index > firstError && !firstAfterErrorSeen;
    const mentionsAnswer = answerNeedle.length > 0 && fact.lower.includes(answerNeedle);

    const kinds = kindsOf(name);
    const code = hasCode(text);
    const values: Record<FeatureName, number> = {
      pos_rel: relative,
      pos_rel_sq: relative * relative,
      pos_first: index === 0 ? 1 : 0,
      pos_second: index === 1 ? 1 : 0,
      pos_log: Math.log1p(index),
      pos_log_long: Math.log1p(index) * long,
      pos_last: index === count - 1 ? 1 : 0,
      first_actor: firstActor ? 1 : 0,
      actor_rank_log: fact.isActor ? Math.log1p(actorRank) : 0,
      agent_first_turn: turn === 0 ? 1 : 0,
      agent_first_turn_long: turn === 0 ? long : 0,
      agent_turn_log: Math.log1p(turn),
      role_tool: step.role === 'tool' ? 1 : 0,
      role_system: step.role === 'system' ? 1 : 0,
      kind_orchestrator: kinds.orchestrator,
      kind_verifier: kinds.verifier,
      kind_web: kinds.web,
      kind_file: kinds.file,
      kind_coder: kinds.coder,
      kind_assistant: kinds.assistant,
      speaker_directive: step.speaker.includes('->') ? 1 : 0,
      speaker_thought: /\(thought\)/i.test(step.speaker) ? 1 : 0,
      length_log: Math.log1p(step.content.length) / 10,
      has_code: code ? 1 : 0,
      has_url: hasUrl(text) ? 1 : 0,
      has_tool_calls: (step.toolCalls?.length ?? 0) > 0 ? 1 : 0,
      numbers_log: Math.log1p(fact.numbers.size) / 3,
      hedging: fact.phrases.hedging ? 1 : 0,
      inability: fact.phrases.inability ? 1 : 0,
      conclusion: fact.phrases.conclusion ? 1 : 0,
      agreement: fact.phrases.agreement ? 1 : 0,
      termination_only: /^\s*TERMINATE\s*$/.test(text) ? 1 : isTermination(text) ? 0.5 : 0,
      planning: fact.phrases.planning ? 1 : 0,
      correction: fact.phrases.correction ? 1 : 0,
      web_action: fact.phrases.webAction ? 1 : 0,
      own_error_output: fact.isErrorOutput ? 1 : 0,
      recorded_error: step.error ? 1 : 0,
      next_error: next?.isErrorOutput || (next && !next.isActor && nextNext?.isErrorOutput) ? 1 : 0,
      next_empty: next?.isEmptyOutput ? 1 : 0,
      next_correction: nextActor?.phrases.correction ? 1 : 0,
      errors_after_share: count > index + 1 ? errorCountAfter[index]! / (count - index - 1) : 0,
      prev_error: facts[index - 1]?.isErrorOutput ? 1 : 0,
      first_after_first_error: firstAfterFirstError ? 1 : 0,
      before_first_error: firstError === -1 || index < firstError ? 1 : 0,
      similar_to_own_previous:
        ownPrevious === undefined ? 0 : jaccard(fact.words, facts[ownPrevious]!.words),
      similar_to_any_previous: maxSimilarity,
      question_overlap: coverage(questionWords, fact.words),
      novel_numbers_log: Math.log1p(novel) / 3,
      introduces_final_numbers: finalNumbers.size > 0 ? introducesFinal / finalNumbers.size : 0,
      claim_without_tool:
        fact.isActor && fact.numbers.size > 0 && !code && (next === undefined || next.isActor)
          ? 1
          : 0,
      mentions_answer: mentionsAnswer ? 1 : 0,
      answer_seen_before: answerSeen ? 1 : 0,
      next_review_no_progress: nextReview[index]?.stalled ? 1 : 0,
      next_review_loop: nextReview[index]?.loop ? 1 : 0,
      cause_of_first_stall: index === stallCause ? 1 : 0,
      actor_rank_1: fact.isActor && actorRank === 1 ? 1 : 0,
      actor_rank_2: fact.isActor && actorRank === 2 ? 1 : 0,
      agent_step_share: fact.isActor && count > 0 ? (stepsOfAgent.get(name) ?? 0) / count : 0,
      agent_most_active: fact.isActor && stepsOfAgent.get(name) === mostActive ? 1 : 0,
      introduces_final_words: finalWords.size > 0 ? introducesWords / finalWords.size : 0,
      directed_here: directedHere ? 1 : 0,
      short_content: text.trim().length < 200 ? 1 : 0,
      agent_turn_1: turn === 1 ? 1 : 0,
      agent_turn_2: turn === 2 ? 1 : 0,
      last_substantive_step: index === lastSubstantive ? 1 : 0,
      code_then_failure: code && (next?.isErrorOutput || next?.isEmptyOutput) ? 1 : 0,
      claim_after_failure:
        fact.isActor && firstError !== -1 && index > firstError && fact.numbers.size > 0 && !code
          ? 1
          : 0,
      unsupported_claim:
        fact.phrases.unsupported &&
        !facts[index - 1]?.isErrorOutput &&
        (facts[index - 1]?.isActor ?? true)
          ? 1
          : 0,
    };
    rows.push(FEATURE_NAMES.map((feature) => values[feature]));

    for (const number of fact.numbers) seenNumbers.add(number);
    lastStepOfAgent.set(step.agent, index);
    turnsOfAgent.set(step.agent, turn + 1);
    if (fact.isActor) actorRank += 1;
    if (firstActor) firstActorSeen = true;
    if (firstAfterFirstError) firstAfterErrorSeen = true;
    if (mentionsAnswer) answerSeen = true;
  }
  return rows;
}

/** Steps that may be blamed: never the human asking. Falls back to all steps when none qualify. */
export function candidateMask(trace: Trace): boolean[] {
  const mask = trace.steps.map((step) => step.role !== 'human');
  return mask.some(Boolean) ? mask : trace.steps.map(() => true);
}
