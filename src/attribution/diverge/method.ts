/**
 * The `diverge` method: trajectory analysis. It names the first step where a failed run departs in
 * substance from a passing run of the same task, given as `reference` (`attribute --ref PASSED`).
 */
import { UserError } from '../../errors.js';
import { NO_USAGE, type Attribution, type AttributionMethod } from '../method.js';
import { diffTraces } from './diff.js';

/** The registry name. */
export const DIVERGE = 'diverge';

/** The message for a call without a passing run to compare with. */
export const NEEDS_REFERENCE =
  'the diverge method compares the failed run with a passing run of the same task: give that run with --ref PASSED';

/** The `diverge` method. */
export const divergeMethod: AttributionMethod = {
  name: DIVERGE,
  description:
    'trajectory analysis: the first step where the run departs from a passing run of the same task (needs --ref PASSED)',
  async attribute(trace, options = {}) {
    const reference = options.reference;
    if (!reference) throw new UserError(NEEDS_REFERENCE);
    const diff = diffTraces(trace, reference);
    const divergence = diff.divergence;
    const passedName = diff.passed.name;
    if (!divergence)
      return {
        agent: null,
        step: null,
        reason: `No divergence: the run does not differ in substance from ${passedName} (${diff.counts.same} steps alike, ${diff.counts.reworded} reworded).`,
        method: DIVERGE,
        usage: { ...NO_USAGE },
      } satisfies Attribution;
    const beside =
      divergence.kind === 'inserted'
        ? ''
        : ` / passing run, step ${divergence.passedStep}: "${divergence.passed}"`;
    return {
      agent: divergence.agent,
      step: divergence.failedStep,
      reason: `The run departs from ${passedName} at step ${divergence.failedStep} (${divergence.agent}): ${divergence.detail}. Failed: "${divergence.failed}"${beside}.`,
      evidence: divergence.failed.startsWith('(')
        ? []
        : [{ step: divergence.failedStep, quote: divergence.failed }],
      method: DIVERGE,
      divergence,
      usage: { ...NO_USAGE },
    } satisfies Attribution;
  },
};
