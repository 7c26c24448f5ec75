/**
 * Agent colours: the first twelve agents of a run, in order of first appearance, get twelve
 * distinct colours (CSS variables `--agent-0` … `--agent-11`, one set for light and one for dark
 * mode, each readable on its background); further agents share them by name.
 */
const DISTINCT = 12;

/** The colour (a CSS value) of each agent of a run. */
export function agentPalette(agentsInOrder: readonly string[]): (agent: string) => string {
  const slots = new Map<string, number>();
  for (const agent of agentsInOrder) if (!slots.has(agent)) slots.set(agent, slots.size);
  return (agent: string) => {
    let slot = slots.get(agent);
    if (slot === undefined || slot >= DISTINCT) {
      let hash = 0;
      for (let index = 0; index < agent.length; index += 1)
        hash = (hash * 31 + agent.charCodeAt(index)) >>> 0;
      slot = hash;
    }
    return `var(--agent-${slot % DISTINCT})`;
  };
}
