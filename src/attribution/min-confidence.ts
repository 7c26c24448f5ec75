/**
 * "No confident attribution": below a chosen agent confidence, a result names no agent and no
 * step, so that a guess is never read as a verdict. The candidates stay, for a look.
 */
import { wholePercent, type Attribution } from './method.js';

/**
 * The result itself, or, when its agent confidence is below `minimum`, the same result with agent
 * and step null and a reason that says why. Methods that state no confidence are left as they are.
 */
export function withMinimumConfidence(
  result: Attribution,
  minimum: number | undefined,
): Attribution {
  const confidence = result.agentConfidence;
  if (minimum === undefined || confidence === undefined || result.agent === null) return result;
  if (confidence >= minimum) return result;
  return {
    ...result,
    agent: null,
    step: null,
    reason: `No confident attribution: the most likely agent, ${result.agent} (step ${result.step}), has ${wholePercent(confidence)} agent confidence, below the minimum of ${wholePercent(minimum)}. ${result.reason}`,
  };
}
