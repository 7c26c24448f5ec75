/**
 * The keyboard: j/k the next or previous shown step, n/p recorded errors, v the verdict, l the
 * label, / the search, ? the shortcuts; Escape leaves a field. Keys typed into a field are its own.
 */
import type { OpenTrace } from './open-trace.js';

/** What the keys act on. */
export interface KeyTargets {
  open(): OpenTrace | undefined;
  openStep(step: number): void;
  searchInput: HTMLInputElement;
}

/** The next (or previous) of `steps` after `from`, wrapping around. */
function nextOf(steps: readonly number[], from: number, direction: 1 | -1): number | undefined {
  if (steps.length === 0) return undefined;
  if (direction === 1) return steps.find((step) => step > from) ?? steps[0];
  return [...steps].reverse().find((step) => step < from) ?? steps[steps.length - 1];
}

/**
 * The step a navigation key goes to (j/k: next or previous shown step, n/p: recorded errors,
 * v: the verdict, l: the label); undefined for another key or when there is none.
 */
function stepOfKey(open: OpenTrace, key: string): number | null | undefined {
  const from = open.cursor ?? -1;
  const visible = open.trace.steps
    .map((step) => step.index)
    .filter((index) => !open.view.nodes.get(index)?.hidden);
  switch (key) {
    case 'j':
      return nextOf(visible, from, 1);
    case 'k':
      return nextOf(visible, from, -1);
    case 'n':
      return nextOf(open.view.errors, from, 1);
    case 'p':
      return nextOf(open.view.errors, from, -1);
    case 'v':
      return open.analysis?.result.step;
    case 'l':
      return open.trace.labels?.step;
  }
  return undefined;
}

/** Listens for the page's shortcuts on the document. */
export function listenForKeys(targets: KeyTargets): void {
  const shortcuts = () => document.getElementById('shortcuts')!;
  document.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement;
    if (event.key === 'Escape' && target.matches('input, textarea, select')) {
      target.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target.matches('input, textarea, select, [contenteditable]')) return;
    if (event.key === '?') {
      shortcuts().hidden = !shortcuts().hidden;
      return;
    }
    const open = targets.open();
    if (!open || document.getElementById('tab-analyse')!.hidden) return;
    if (event.key === '/') {
      event.preventDefault();
      targets.searchInput.focus();
      return;
    }
    const step = stepOfKey(open, event.key);
    if (step === null || step === undefined) return;
    event.preventDefault();
    targets.openStep(step);
  });
}
