/**
 * Role families recognised from agent names, independent of any one framework's spelling.
 */

const KIND_PATTERNS = {
  orchestrator: /orchestrat|manager|planner|supervisor|coordinator|triage|leader/i,
  verifier: /verif|valid|check|review|critic|quality|\bqa\b|tester|judge/i,
  web: /web|surf|brows|search|navigat|crawl|scrap/i,
  file: /file|document|reader|pdf/i,
  coder: /code|coder|python|program|debug|develop|engineer|script/i,
  assistant: /assistant/i,
} as const;

/** A role family. */
export type AgentKind = keyof typeof KIND_PATTERNS;

const kindCache = new Map<string, Record<AgentKind, number>>();

/** Role families of an agent name, 1 or 0 each (cached: names repeat on every step). */
export function kindsOf(name: string): Record<AgentKind, number> {
  let kinds = kindCache.get(name);
  if (!kinds) {
    kinds = Object.fromEntries(
      Object.entries(KIND_PATTERNS).map(([kind, pattern]) => [kind, pattern.test(name) ? 1 : 0]),
    ) as Record<AgentKind, number>;
    if (kindCache.size > 10_000) kindCache.clear();
    kindCache.set(name, kinds);
  }
  return kinds;
}
