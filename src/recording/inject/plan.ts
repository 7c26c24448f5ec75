/**
 * An injection plan: which calls of a run to corrupt, how, and which MAST failure mode the
 * corruption stands for. A plan file is JSON: one target, a list of targets, or `{targets: [...]}`.
 *
 *   {"agent": "coder", "occurrence": 2, "strategy": "response-corruption", "mode": "2.6",
 *    "operator": "perturb-number"}
 *
 * Targets name an agent as the proxy names it (x-faultline-agent, the prompt, a fingerprint) and
 * its nth call in the run (1-based); the label of the run is then that call's step.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../errors.js';
import { mastCode } from '../../trace/mast.js';

/** The two strategies of Aegis: change what the agent answered, or what it was asked. */
export type Strategy = 'response-corruption' | 'prompt-injection';

/** One injected fault. */
export interface InjectionTarget {
  agent: string;
  /** The agent's nth call in the run, 1-based. */
  occurrence: number;
  strategy: Strategy;
  /** MAST code, `2.6` (written `FM-2.6` or `2.6` in the file). */
  mode: string;
  /** An operator's name (operators.ts), `manipulator` for the manipulator model. */
  operator: string;
  /** The operator's setting: the text of `replace` and `instruction`, the change of `perturb-number`. */
  text?: string;
  delta?: number;
}

/** A whole plan. */
export interface InjectionPlan {
  targets: InjectionTarget[];
}

const targetSchema = z.object({
  agent: z.string().min(1),
  occurrence: z.number().int().min(1).default(1),
  strategy: z.enum(['response-corruption', 'prompt-injection']).optional(),
  mode: z.string().min(1),
  operator: z.string().min(1),
  text: z.string().optional(),
  delta: z.number().optional(),
});

const planSchema = z.union([
  targetSchema,
  z.array(targetSchema).min(1),
  z.object({ targets: z.array(targetSchema).min(1) }),
]);

/**
 * Checks a plan already parsed from JSON. `strategyOf` gives an operator's strategy (or undefined
 * for an unknown operator, which is refused with the list of known ones).
 */
export function parsePlan(
  value: unknown,
  name: string,
  operators: { strategyOf(operator: string): Strategy | undefined; names(): string[] },
): InjectionPlan {
  const parsed = planSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(the plan)';
    throw new UserError(`${name}: ${field}: ${issue.message}`);
  }
  const list = Array.isArray(parsed.data)
    ? parsed.data
    : 'targets' in parsed.data
      ? parsed.data.targets
      : [parsed.data];
  const targets = list.map((target, index): InjectionTarget => {
    const where = list.length > 1 ? `targets.${index}.` : '';
    const mode = mastCode(target.mode);
    if (!mode)
      throw new UserError(
        `${name}: ${where}mode: "${target.mode}" is not a MAST mode; use a code from 1.1 to 3.3 (FM-2.6 or 2.6)`,
      );
    const strategy = operators.strategyOf(target.operator);
    if (!strategy)
      throw new UserError(
        `${name}: ${where}operator: unknown operator "${target.operator}"; choose one of ${operators.names().join(', ')}`,
      );
    if (target.strategy && target.strategy !== strategy && target.operator !== 'manipulator')
      throw new UserError(
        `${name}: ${where}strategy: the operator ${target.operator} is a ${strategy}, not a ${target.strategy}`,
      );
    return {
      agent: target.agent,
      occurrence: target.occurrence,
      strategy: target.strategy ?? strategy,
      mode,
      operator: target.operator,
      ...(target.text !== undefined ? { text: target.text } : {}),
      ...(target.delta !== undefined ? { delta: target.delta } : {}),
    };
  });
  return { targets };
}

/** Reads a plan file (or inline JSON, when the value starts with `{` or `[`). */
export function loadPlan(
  fileOrJson: string,
  operators: Parameters<typeof parsePlan>[2],
): InjectionPlan {
  const inline = /^\s*[[{]/.test(fileOrJson);
  const name = inline ? '--inject' : fileOrJson;
  let text = fileOrJson;
  if (!inline) {
    try {
      text = readFileSync(fileOrJson, 'utf8');
    } catch (error) {
      throw new UserError(
        `${name}: cannot read the plan (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError(
      `${name}: the plan is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return parsePlan(value, name, operators);
}
