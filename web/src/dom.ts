/**
 * Building DOM nodes from data. Trace content is always set as text (textContent), never as
 * markup, so a trace holding `<script>` or `<img onerror>` shows those characters and runs nothing.
 */

type Child = Node | string | null | undefined | false;

/** An element with attributes (never event handlers or HTML) and children as nodes or text. */
export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) throw new Error('event handlers are attached with addEventListener');
    node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** The responsible agent(s) a label names: `Coder or Planner`, `?` when it names none. */
export const labelledAgents = (label: { agent?: string; agents?: string[] }) =>
  (label.agents ?? [label.agent ?? '?']).join(' or ');

/** A method's score in three decimals, as the spectrum states it; above 0, never `0.000`. */
export const scoreText = (score: number) =>
  score > 0 && score < 0.0005 ? '<0.001' : score.toFixed(3);

/**
 * A candidate step's figure: its probability as a percent, or the score of a method whose
 * candidates carry its own scale (`candidateScale`; spectrum and combined analyses stored before
 * it was set say so by their method).
 */
export function candidateFigure(
  score: number,
  result: { candidateScale?: 'score'; method: string },
): string {
  const scored =
    result.candidateScale === 'score' ||
    result.method === 'spectrum' ||
    result.method === 'combined';
  return scored ? `score ${scoreText(score)}` : percent(score);
}

/** Percent text of a probability; one above 0 that rounds to 0 is `<1%`, not `0%`. */
export const percent = (value: number | undefined) =>
  value === undefined ? '' : `${value > 0 && value < 0.005 ? '<1' : (value * 100).toFixed(0)}%`;

/** A table with a header row of names and the given body. */
export function table(head: readonly string[], body: HTMLTableSectionElement): HTMLTableElement {
  return element(
    'table',
    {},
    element('thead', {}, element('tr', {}, ...head.map((name) => element('th', {}, name)))),
    body,
  );
}
