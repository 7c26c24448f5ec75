/**
 * The run-level pass of the features: facts about the whole trace that every step's features need
 * (where the first error is, who speaks how much, what the final claim says and where its words
 * and numbers first appear, which step started a stall), plus each step's place in the run's
 * running state (its speaker's turn, its rank among agent steps). Computed once per trace in
 * linear passes, so features never scan the trace again.
 */
import type { Trace } from '../../../trace/model.js';
import { factsOf, type StepFacts } from './step-facts.js';
import { numbersIn } from './text-signals.js';
import { wordsIn, type WordSet } from './tokens.js';

/** A later progress review's verdict. */
export interface ReviewVerdict {
  stalled: boolean;
  loop: boolean;
}

/** Where a step stands in the run, from the running state before it. */
export interface StepState {
  /** Turns its speaker took before it. */
  turn: number;
  /** Its speaker's previous step, if any. */
  ownPrevious: number | undefined;
  /** Agent steps before it. */
  actorRank: number;
  /** The run's first agent step. */
  firstActor: boolean;
  /** The first agent step after the first failing output. */
  firstAfterFirstError: boolean;
  /** Whether an earlier step already mentioned the expected answer. */
  answerSeenBefore: boolean;
  /** Numbers new to the run (not in the task nor any earlier step), and those among them that the final claim repeats. */
  novelNumbers: number;
  introducesFinalNumbers: number;
}

/** Everything the features know about a run before looking at one step. */
export interface RunFacts {
  facts: StepFacts[];
  count: number;
  /** More than 15 steps: position features are read differently in long runs. */
  long: number;
  /** The task's words and numbers. */
  questionWords: WordSet;
  questionNumbers: Set<string>;
  /** The expected answer, lower-cased ('' when hidden or unknown). */
  answerNeedle: string;
  /** Numbers of the final claim that are not in the task, and its words likewise. */
  finalNumbers: Set<string>;
  finalWords: Set<number>;
  /** Step index → how many of the final claim's words first appear there. */
  introducedAt: Map<number, number>;
  firstError: number;
  /** Failing outputs after each step. */
  errorCountAfter: number[];
  /** The next agent step after each step. */
  nextActorAfter: (StepFacts | undefined)[];
  /** The next progress review after each step. */
  nextReview: (ReviewVerdict | undefined)[];
  /** The agent step that preceded the first stalled or looping review (-1 if none). */
  stallCause: number;
  /** Agent steps per agent, and the most any agent has. */
  stepsOfAgent: Map<string, number>;
  mostActive: number;
  /** The last step that does real work: not a bare TERMINATE, a termination notice or the human. */
  lastSubstantive: number;
  states: StepState[];
  /** Each number of the run and where it is first written: -1 for the task's, else its step. */
  firstSeen: ReadonlyMap<string, number>;
}

/**
 * The figures of a run as the features read them: where each is first written (-1 for the task's)
 * and the final claim's (those the task does not give). Kept apart from the facts so that holding
 * them keeps no text.
 */
export interface RunFigures {
  firstSeen: ReadonlyMap<string, number>;
  final: ReadonlySet<string>;
}

/** The figures of a run's facts. */
export function figuresOf(run: RunFacts): RunFigures {
  return { firstSeen: run.firstSeen, final: run.finalNumbers };
}

const BARE_TERMINATE = /^\s*TERMINATE\s*$/;
const THOUGHT = /\(thought\)/i;

/** The run-level facts of a trace. */
export function runFactsOf(trace: Trace): RunFacts {
  const steps = trace.steps;
  const count = steps.length;
  const facts = steps.map(factsOf);
  const questionWords = wordsIn(trace.question ?? '');
  const questionNumbers = numbersIn(trace.question ?? '');
  const answerNeedle = (trace.groundTruth ?? '').trim().toLowerCase();

  // The run's own final claim: numbers in the last actor step that are not in the task.
  const lastActor = [...facts.keys()]
    .reverse()
    .find((index) => facts[index]!.isActor && !BARE_TERMINATE.test(steps[index]!.content));
  const finalFacts = lastActor === undefined ? undefined : facts[lastActor];
  const finalNumbers = new Set(
    [...(finalFacts?.numbers ?? [])].filter((number) => !questionNumbers.has(number)),
  );
  const finalWords = new Set(
    [...(finalFacts?.words ?? [])].filter((word) => !questionWords.has(word)),
  );
  // Where each word of the final claim first appears (final words exclude the task's words).
  const introducedAt = new Map<number, number>();
  for (const word of finalWords) {
    const first = facts.findIndex((fact) => fact.words.has(word));
    if (first !== -1) introducedAt.set(first, (introducedAt.get(first) ?? 0) + 1);
  }

  const firstError = facts.findIndex((fact) => fact.isErrorOutput);
  const errorCountAfter: number[] = new Array<number>(count).fill(0);
  for (let index = count - 2; index >= 0; index -= 1)
    errorCountAfter[index] =
      errorCountAfter[index + 1]! + (facts[index + 1]!.isErrorOutput ? 1 : 0);

  // The next actor step and the next review verdict after each index, in one backward pass.
  const nextActorAfter = new Array<StepFacts | undefined>(count);
  const nextReview = new Array<ReviewVerdict | undefined>(count);
  let followingActor: StepFacts | undefined;
  let followingReview: ReviewVerdict | undefined;
  for (let index = count - 1; index >= 0; index -= 1) {
    const fact = facts[index]!;
    nextActorAfter[index] = followingActor;
    nextReview[index] = followingReview;
    if (fact.isActor) followingActor = fact;
    if (fact.isReview || fact.reviewStalled || fact.reviewLoop)
      followingReview = { stalled: fact.reviewStalled, loop: fact.reviewLoop };
  }
  const firstStall = facts.findIndex((fact) => fact.reviewStalled || fact.reviewLoop);
  let stallCause = -1;
  for (let index = firstStall - 1; index >= 0; index -= 1) {
    if (facts[index]!.isActor && !THOUGHT.test(steps[index]!.speaker)) {
      stallCause = index;
      break;
    }
  }

  const stepsOfAgent = new Map<string, number>();
  for (const step of steps)
    if (step.role === 'agent')
      stepsOfAgent.set(step.agent, (stepsOfAgent.get(step.agent) ?? 0) + 1);

  // Where each number is first written: -1 for the task's, else the step (stepStates fills it).
  const firstSeen = new Map<string, number>();
  for (const number of questionNumbers) firstSeen.set(number, -1);

  let lastSubstantive = -1;
  for (let index = count - 1; index >= 0; index -= 1) {
    const step = steps[index]!;
    if (
      step.role === 'human' ||
      BARE_TERMINATE.test(step.content) ||
      /\((termination|final answer)/i.test(step.speaker)
    )
      continue;
    lastSubstantive = index;
    break;
  }

  return {
    facts,
    count,
    long: count > 15 ? 1 : 0,
    questionWords,
    questionNumbers,
    answerNeedle,
    finalNumbers,
    finalWords,
    introducedAt,
    firstError,
    errorCountAfter,
    nextActorAfter,
    nextReview,
    stallCause,
    stepsOfAgent,
    mostActive: Math.max(0, ...stepsOfAgent.values()),
    lastSubstantive,
    states: stepStates(trace, facts, firstSeen, finalNumbers, firstError, answerNeedle),
    firstSeen,
  };
}

/** The running state before each step, in one forward pass. */
function stepStates(
  trace: Trace,
  facts: readonly StepFacts[],
  firstSeen: Map<string, number>,
  finalNumbers: ReadonlySet<string>,
  firstError: number,
  answerNeedle: string,
): StepState[] {
  const lastStepOfAgent = new Map<string, number>();
  const turnsOfAgent = new Map<string, number>();
  let actorRank = 0;
  let firstActorSeen = false;
  let firstAfterErrorSeen = false;
  let answerSeen = false;
  return trace.steps.map((step, index) => {
    const fact = facts[index]!;
    let novelNumbers = 0;
    let introducesFinalNumbers = 0;
    // A step's numbers are a set: recording one as first seen here cannot affect how another of
    // the same step is judged, so each is judged against the task and earlier steps alone.
    for (const number of fact.numbers) {
      if (!firstSeen.has(number)) {
        novelNumbers += 1;
        if (finalNumbers.has(number)) introducesFinalNumbers += 1;
        firstSeen.set(number, index);
      }
    }
    const turn = turnsOfAgent.get(step.agent) ?? 0;
    const firstActor = fact.isActor && !firstActorSeen;
    const firstAfterFirstError =
      fact.isActor && firstError !== -1 && index > firstError && !firstAfterErrorSeen;
    const state: StepState = {
      turn,
      ownPrevious: lastStepOfAgent.get(step.agent),
      actorRank,
      firstActor,
      firstAfterFirstError,
      answerSeenBefore: answerSeen,
      novelNumbers,
      introducesFinalNumbers,
    };
    lastStepOfAgent.set(step.agent, index);
    turnsOfAgent.set(step.agent, turn + 1);
    if (fact.isActor) actorRank += 1;
    if (firstActor) firstActorSeen = true;
    if (firstAfterFirstError) firstAfterErrorSeen = true;
    if (answerNeedle.length > 0 && fact.lower.includes(answerNeedle)) answerSeen = true;
    return state;
  });
}
