/**
 * The one signal that separated right from wrong agents on every system held out (docs/MODEL.md,
 * Confidence and unfamiliar runs): the agent scorer has a clear favourite, its runner-up at most
 * half as likely. Where it holds, the named agent was right more often on each of the six systems
 * left out in turn and on the example team's injected runs; it moves what an unfamiliar run states.
 */

/** The runner-up's largest share of the favourite's probability for the favourite to be clear. */
export const CLEAR_FAVOURITE_SHARE = 0.5;

/** Whether the most likely agent (agents most likely first) is at least twice the runner-up. */
export function hasClearFavourite(agents: readonly { probability: number }[]): boolean {
  const [first, second] = agents;
  if (!first) return false;
  return !second || second.probability <= CLEAR_FAVOURITE_SHARE * first.probability;
}
