/**
 * Who answers for a step (issue 53): its speaker where that is an agent that may be named; for a
 * tool's output, the agent whose call it answers, the nearest earlier step's speaker that may be
 * named. A tool is never named responsible, but its output may be the decisive step: Who&When
 * labels a failing code run on `Computer_terminal`'s step and blames the expert who wrote the code.
 * Any other step (a placeholder's, a person's) has no owner and is never named.
 */
import type { Trace } from '../../../trace/model.js';

/** Each step's owner (undefined: no agent answers for it), given the agents that may be named. */
export function stepOwners(trace: Trace, named: ReadonlySet<string>): (string | undefined)[] {
  let caller: string | undefined;
  return trace.steps.map((step) => {
    if (named.has(step.agent)) {
      caller = step.agent;
      return step.agent;
    }
    return step.role === 'tool' ? caller : undefined;
  });
}
