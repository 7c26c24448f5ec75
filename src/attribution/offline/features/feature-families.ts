/**
 * The step features, one function per family. Each reads one step in the light of the run-level
 * facts (run-facts.ts) and fills the features of its family, keyed by name; `features.ts` lays
 * them out in the column order of feature-names.ts. A family's return type lists its names, so a
 * feature computed twice, misspelt or forgotten fails to compile.
 */
import type { Step } from '../../../trace/model.js';
import { kindsOf } from './agent-kinds.js';
import { contradictionOf } from './contradiction.js';
import type { FeatureName } from './feature-names.js';
import type { RunFacts, StepState } from './run-facts.js';
import type { StepFacts } from './step-facts.js';
import { coverage, hasUrl, isTermination, jaccard } from './text-signals.js';

/** One step as the families see it. */
export interface StepView {
  index: number;
  step: Step;
  /** All steps of the run. */
  steps: readonly Step[];
  fact: StepFacts;
  state: StepState;
  run: RunFacts;
  /** The step carries a fenced code block (read by several families). */
  code: boolean;
}

/** One step's feature values, filled in place by the families (no per-family objects: speed). */
export type FeatureValues = Record<FeatureName, number>;

const flag = (value: boolean | undefined) => (value ? 1 : 0);

/** How many earlier steps a step is compared with when looking for repetition. */
const SIMILARITY_WINDOW = 4;
const BARE_TERMINATE = /^\s*TERMINATE\s*$/;
const THOUGHT = /\(thought\)/i;

/** Where the step sits in the run and in its speaker's turns. */
function positionFeatures({ index, state, fact, run }: StepView, out: FeatureValues): void {
  const relative = run.count > 1 ? index / (run.count - 1) : 0;
  const actor = fact.isActor;
  out.pos_rel = relative;
  out.pos_rel_sq = relative * relative;
  out.pos_first = flag(index === 0);
  out.pos_second = flag(index === 1);
  out.pos_log = Math.log1p(index);
  out.pos_log_long = Math.log1p(index) * run.long;
  out.pos_last = flag(index === run.count - 1);
  out.first_actor = flag(state.firstActor);
  out.actor_rank_log = actor ? Math.log1p(state.actorRank) : 0;
  out.actor_rank_1 = flag(actor && state.actorRank === 1);
  out.actor_rank_2 = flag(actor && state.actorRank === 2);
  out.agent_first_turn = flag(state.turn === 0);
  out.agent_first_turn_long = state.turn === 0 ? run.long : 0;
  out.agent_turn_log = Math.log1p(state.turn);
  out.agent_turn_1 = flag(state.turn === 1);
  out.agent_turn_2 = flag(state.turn === 2);
  out.last_substantive_step = flag(index === run.lastSubstantive);
}

/** Who speaks: role, the role family of the name, how the framework addressed it, how much it speaks. */
function speakerFeatures({ index, step, steps, fact, run }: StepView, out: FeatureValues): void {
  const name = step.agent;
  const kinds = kindsOf(name);
  const directed = `-> ${name.toLowerCase()}`;
  const addressed = (speaker: string | undefined) =>
    speaker !== undefined && speaker.includes('->') && speaker.toLowerCase().includes(directed);
  const ownSteps = run.stepsOfAgent.get(name);
  out.role_tool = flag(step.role === 'tool');
  out.role_system = flag(step.role === 'system');
  out.kind_orchestrator = kinds.orchestrator;
  out.kind_verifier = kinds.verifier;
  out.kind_web = kinds.web;
  out.kind_file = kinds.file;
  out.kind_coder = kinds.coder;
  out.kind_assistant = kinds.assistant;
  out.speaker_directive = flag(step.speaker.includes('->'));
  out.speaker_thought = flag(THOUGHT.test(step.speaker));
  out.directed_here = flag(
    addressed(steps[index - 1]?.speaker) || addressed(steps[index - 2]?.speaker),
  );
  out.agent_step_share = fact.isActor && run.count > 0 ? (ownSteps ?? 0) / run.count : 0;
  out.agent_most_active = flag(fact.isActor && ownSteps === run.mostActive);
}

/** What the step holds: length, code, links, tool calls, numbers, a termination. */
function contentFeatures({ step, fact, code }: StepView, out: FeatureValues): void {
  const { text } = fact;
  out.length_log = Math.log1p(step.content.length) / 10;
  out.short_content = flag(text.trim().length < 200);
  out.has_code = flag(code);
  out.has_url = flag(hasUrl(text));
  out.has_tool_calls = flag((step.toolCalls?.length ?? 0) > 0);
  out.numbers_log = Math.log1p(fact.numbers.size) / 3;
  out.termination_only = BARE_TERMINATE.test(text) ? 1 : isTermination(text) ? 0.5 : 0;
}

/** What the agent says it does (phrases.ts): hedging, giving up, concluding, planning, correcting. */
function phraseFeatures({ index, fact, run }: StepView, out: FeatureValues): void {
  const { phrases } = fact;
  const previous = run.facts[index - 1];
  out.hedging = flag(phrases.hedging);
  out.inability = flag(phrases.inability);
  out.conclusion = flag(phrases.conclusion);
  out.agreement = flag(phrases.agreement);
  out.planning = flag(phrases.planning);
  out.correction = flag(phrases.correction);
  out.web_action = flag(phrases.webAction);
  // A claim without support, unless it answers a failure or another agent's turn.
  out.unsupported_claim = flag(
    phrases.unsupported && !previous?.isErrorOutput && (previous?.isActor ?? true),
  );
}

/** Failures around the step: its own output, what follows it, and where it stands to the first one. */
function errorFeatures(
  { index, step, fact, run, state, code }: StepView,
  out: FeatureValues,
): void {
  const next = run.facts[index + 1];
  const nextNext = run.facts[index + 2];
  const { count, firstError } = run;
  out.own_error_output = flag(fact.isErrorOutput);
  out.recorded_error = flag(Boolean(step.error));
  out.next_error = flag(next?.isErrorOutput || (next && !next.isActor && nextNext?.isErrorOutput));
  out.next_empty = flag(next?.isEmptyOutput);
  out.next_correction = flag(run.nextActorAfter[index]?.phrases.correction);
  out.errors_after_share =
    count > index + 1 ? (run.errorCountAfter[index] ?? 0) / (count - index - 1) : 0;
  out.prev_error = flag(run.facts[index - 1]?.isErrorOutput);
  out.first_after_first_error = flag(state.firstAfterFirstError);
  out.before_first_error = flag(firstError === -1 || index < firstError);
  out.code_then_failure = flag(code && (next?.isErrorOutput || next?.isEmptyOutput));
}

/** Repetition: how much the step repeats its speaker's previous step and the steps just before. */
function repetitionFeatures({ index, fact, state, run }: StepView, out: FeatureValues): void {
  let maxSimilarity = 0;
  // The speaker's previous step is usually among the last few: its similarity is taken from there.
  let ownSimilarity: number | undefined;
  const size = fact.words.size;
  for (let earlier = Math.max(0, index - SIMILARITY_WINDOW); earlier < index; earlier += 1) {
    const words = run.facts[earlier]!.words;
    // Two sets' similarity is at most the smaller's size over the larger's: a step that cannot
    // beat the most similar so far is not compared (its speaker's previous step always is).
    if (
      earlier !== state.ownPrevious &&
      Math.min(size, words.size) <= maxSimilarity * Math.max(size, words.size)
    )
      continue;
    const similarity = jaccard(fact.words, words);
    if (earlier === state.ownPrevious) ownSimilarity = similarity;
    maxSimilarity = Math.max(maxSimilarity, similarity);
  }
  const own = state.ownPrevious === undefined ? undefined : run.facts[state.ownPrevious];
  out.similar_to_own_previous = own ? (ownSimilarity ?? jaccard(fact.words, own.words)) : 0;
  out.similar_to_any_previous = maxSimilarity;
}

/**
 * The task and the final claim: overlap with the question, the expected answer, and whether the
 * step introduces numbers or words that the run's final (wrong) claim repeats.
 */
function claimFeatures(
  { index, steps, fact, state, run, code }: StepView,
  out: FeatureValues,
): void {
  const next = run.facts[index + 1];
  const claims = fact.isActor && fact.numbers.size > 0 && !code;
  out.question_overlap = coverage(run.questionWords, fact.words);
  out.novel_numbers_log = Math.log1p(state.novelNumbers) / 3;
  out.introduces_final_numbers =
    run.finalNumbers.size > 0 ? state.introducesFinalNumbers / run.finalNumbers.size : 0;
  out.introduces_final_words =
    run.finalWords.size > 0 ? (run.introducedAt.get(index) ?? 0) / run.finalWords.size : 0;
  out.claim_without_tool = flag(claims && (next === undefined || next.isActor));
  out.claim_after_failure = flag(claims && run.firstError !== -1 && index > run.firstError);
  // Restates a quantity of the tool output it just read with another value (contradiction.ts).
  out.contradicts_tool_output = flag(
    fact.isActor && fact.numbers.size > 0 && contradictionOf(steps, index) !== undefined,
  );
  out.mentions_answer = flag(run.answerNeedle.length > 0 && fact.lower.includes(run.answerNeedle));
  out.answer_seen_before = flag(state.answerSeenBefore);
}

/** Progress reviews: a later review that finds no progress or a loop, and the step that began a stall. */
function reviewFeatures({ index, run }: StepView, out: FeatureValues): void {
  out.next_review_no_progress = flag(run.nextReview[index]?.stalled);
  out.next_review_loop = flag(run.nextReview[index]?.loop);
  out.cause_of_first_stall = flag(index === run.stallCause);
}

/** The feature families, each filling its own features. */
export const FEATURE_FAMILIES = {
  position: positionFeatures,
  speaker: speakerFeatures,
  content: contentFeatures,
  phrases: phraseFeatures,
  errors: errorFeatures,
  repetition: repetitionFeatures,
  claims: claimFeatures,
  reviews: reviewFeatures,
} as const;

const FAMILIES = Object.values(FEATURE_FAMILIES);

/** Every family's values for one step, written into `out` (reused across steps). */
export function fillStepFeatures(view: StepView, out: FeatureValues): void {
  for (const family of FAMILIES) family(view, out);
}
