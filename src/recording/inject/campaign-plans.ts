/**
 * A campaign's plans: for each task, targets drawn (seeded) from the model calls of its clean run,
 * preferring the calls where the chosen operator changes something.
 */
import { createHash } from 'node:crypto';
import type { Trace } from '../../trace/model.js';
import { recordingOf } from '../record/recording.js';
import { earlierReplies } from './injector.js';
import { MANIPULATOR, MODE_OPERATORS, OPERATORS } from './operators.js';
import type { InjectionTarget } from './plan.js';

/** A seeded generator (mulberry32) from a text. */
function generator(seedText: string): () => number {
  let state = createHash('sha256').update(seedText).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <Item>(items: readonly Item[], random: () => number): Item =>
  items[Math.floor(random() * items.length)]!;

/**
 * The plans of a task: `count` targets, each a model call of the clean run (its agent and
 * occurrence), a mode of `modes` and an operator for it. The same seed gives the same plans.
 */
export function samplePlans(
  clean: Trace,
  options: {
    count: number;
    modes: string[];
    operators?: string[];
    seed: number;
    task: string;
    manipulator: boolean;
  },
): InjectionTarget[] {
  const calls = (recordingOf(clean)?.calls ?? []).filter((call) => call.step !== undefined);
  if (calls.length === 0) return [];
  const random = generator(`${options.seed}:${options.task}`);
  const plans: InjectionTarget[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const mode = options.modes[index % options.modes.length]!;
    const own = MODE_OPERATORS[mode] ?? ['replace'];
    const allowed = options.operators
      ? own.filter((name) => options.operators!.includes(name))
      : own;
    const operators =
      options.operators?.includes(MANIPULATOR) || (options.manipulator && !options.operators)
        ? [MANIPULATOR]
        : allowed.length > 0
          ? allowed
          : (options.operators ?? own);
    const target = (call: (typeof calls)[number], operator: string): InjectionTarget => ({
      agent: call.agent,
      occurrence: call.agentCall + 1,
      strategy: OPERATORS.get(operator)?.strategy ?? 'response-corruption',
      mode,
      operator,
    });
    // The calls where the operator changes something in the clean run; any call when none.
    const fitting = calls.flatMap((call) =>
      operators
        .filter((operator) => applies(clean, call.step!, target(call, operator)))
        .map((operator) => target(call, operator)),
    );
    plans.push(
      fitting.length > 0
        ? pick(fitting, random)
        : target(pick(calls, random), pick(operators, random)),
    );
  }
  return plans;
}

/** Whether a target's operator would change the clean run's call at `step`. */
function applies(clean: Trace, step: number, target: InjectionTarget): boolean {
  const operator = OPERATORS.get(target.operator);
  if (!operator) return true;
  if (operator.strategy === 'prompt-injection')
    return target.operator !== 'drop-last-tool-result' || clean.steps[step - 1]?.role === 'tool';
  const reply = earlierReplies(clean, step + 1).at(-1)?.reply;
  if (!reply) return false;
  return (
    operator.apply(reply, {
      target,
      request: { stream: false, system: '', items: [] },
      earlier: earlierReplies(clean, step),
    }) !== undefined
  );
}
