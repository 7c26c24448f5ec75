/**
 * The deterministic injection operators, by name: reply operators change what an agent answered
 * (response corruption), request operators change what it is asked (prompt injection). Each one
 * returns undefined when it finds nothing to change (no number to perturb, no code to drop), so a
 * plan that could not be applied is counted, not recorded as a fault. The manipulator model
 * (manipulator.ts) is the one operator that is not here: it needs a model call. The operators
 * themselves are reply-operators.ts and request-operators.ts; this module is their registry.
 */
import type { Operator } from './operator-types.js';
import type { Strategy } from './plan.js';
import { replyOperators } from './reply-operators.js';
import { requestOperators } from './request-operators.js';

export { perturbLastNumber } from './reply-operators.js';
export { instructionFor, withInstruction, withoutLastToolResult } from './request-operators.js';
export type {
  EarlierReply,
  Operator,
  OperatorContext,
  ReplyOperator,
  RequestOperator,
} from './operator-types.js';

/** The manipulator model's name in plans. */
export const MANIPULATOR = 'manipulator';

/** Every deterministic operator, by name. */
export const OPERATORS = new Map<string, Operator>([
  ...replyOperators.map(([name, description, apply]): [string, Operator] => [
    name,
    { strategy: 'response-corruption', description, apply },
  ]),
  ...requestOperators.map(([name, description, apply]): [string, Operator] => [
    name,
    { strategy: 'prompt-injection', description, apply },
  ]),
]);

/** The registry as plans check it: operator names (the manipulator's included) and strategies. */
export const operatorCatalog = {
  names: () => [...OPERATORS.keys(), MANIPULATOR],
  strategyOf: (name: string): Strategy | undefined =>
    name === MANIPULATOR ? 'response-corruption' : OPERATORS.get(name)?.strategy,
};

/**
 * The deterministic operators that stand for each mode, for generated plans (inject): the first
 * is tried first. Every mode has at least one.
 */
export const MODE_OPERATORS: Record<string, string[]> = {
  '1.1': ['perturb-number', 'replace'],
  '1.2': ['other-role'],
  '1.3': ['repeat-previous'],
  '1.4': ['drop-last-tool-result'],
  '1.5': ['instruction'],
  '2.1': ['repeat-previous'],
  '2.2': ['instruction'],
  '2.3': ['instruction', 'other-role'],
  '2.4': ['drop-code-block', 'truncate-code-block'],
  '2.5': ['instruction'],
  '2.6': ['perturb-number'],
  '3.1': ['stop-early'],
  '3.2': ['claim-success'],
  '3.3': ['claim-success'],
};
