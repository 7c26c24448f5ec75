/**
 * What adapting to a system learned (`train --base`, `faultline adapt`): the agents most often to
 * blame in the user's runs, and which adaptation was chosen, with each one's agent accuracy on those
 * runs left out in turn (train/system-layer.ts).
 */
import type { SystemLayer } from '../../attribution/offline/scores/agent-prior.js';

/** What the system layer learned, and which adaptation was chosen and why, in two lines. */
export function systemLine({ agentPrior, weight, runs, choice, heldOut }: SystemLayer): string {
  const ranked = agentPrior.names
    .map((name, index) => ({ name, rate: agentPrior.rates[index]! }))
    .sort((left, right) => right.rate - left.rate)
    .slice(0, 3)
    .map(({ name, rate }) => `${name} ${(rate * 100).toFixed(0)}%`);
  const learned = `adapted to your system from ${runs} labelled runs: its agents' record (most often to blame: ${ranked.join(', ')})`;
  if (!choice || !heldOut)
    return weight === 0
      ? `${learned} did not name more of them right, left out, so the log alone decides (weight 0)`
      : `${learned} weighs in at ${weight}, chosen by leaving each run out in turn`;
  const percent = (value: number) => `${(100 * value).toFixed(0)}%`;
  const chosen = {
    blend: `the model blended with the record (weight ${weight})`,
    adapted: `the model with its system layer (weight ${weight})`,
    prior: 'the record alone, the model breaking its ties',
    shipped: 'the shipped model unchanged',
  }[choice];
  return `${learned}\nchosen: ${chosen}; each run left out in turn, agent right: blend ${percent(heldOut.blend)}, adapted ${percent(heldOut.adapted)}, record ${percent(heldOut.prior)}, shipped ${percent(heldOut.shipped)}`;
}
