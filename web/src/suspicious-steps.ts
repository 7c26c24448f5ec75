/**
 * The steps a task's spectrum found suspicious (docs/SPECTRUM.md §5), marked in the Analyse view's
 * conversation when its URL names them (`?suspicious=2,4`, most suspicious first): a badge in the
 * step's head, in the task view's suspicion style, and the same words in the step's accessible name.
 */
import type { ConversationView } from './conversation.js';
import { element } from './dom.js';

/** What a marked step says, to the eye and to a screen reader. */
export const SUSPICIOUS_TEXT = "suspicious in the task's runs";

const MOST_SUSPICIOUS_TEXT = `most ${SUSPICIOUS_TEXT}`;

/** Removes the marks of `node`, if it carries them. */
function unmark(node: HTMLElement): void {
  if (!node.classList.contains('suspicious')) return;
  node.classList.remove('suspicious');
  node.querySelector('.step-head .badge.suspicion')?.remove();
  node.setAttribute('aria-label', node.dataset.plainLabel ?? '');
}

/** Marks `steps` (most suspicious first) in the conversation, clearing the marks it had before. */
export function markSuspicious(view: ConversationView, steps: readonly number[]): void {
  for (const node of view.built.values()) unmark(node);
  steps.forEach((step, rank) => {
    const node = view.node(step);
    if (!node) return;
    const text = rank === 0 ? MOST_SUSPICIOUS_TEXT : SUSPICIOUS_TEXT;
    node.classList.add('suspicious');
    node.querySelector('.step-head')?.append(element('span', { class: 'badge suspicion' }, text));
    // The step's own name is kept aside, so that unmarking gives it back as it was.
    node.dataset.plainLabel ??= node.getAttribute('aria-label') ?? '';
    node.setAttribute('aria-label', `${node.dataset.plainLabel}, ${text}`);
  });
}
