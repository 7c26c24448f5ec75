/**
 * Text highlights inside steps (the verdict's evidence, search matches) with the CSS Custom
 * Highlight API: no markup is inserted into trace text, so it stays inert.
 */
import type { Attribution } from './api.js';

/**
 * Lines to highlight for a verdict, each in its step: the method's `evidence` where it gives it (the
 * offline method), else the “…” quotes of its reason, looked for in the named step and the next.
 */
export function evidenceLines(
  result: Pick<Attribution, 'step' | 'reason' | 'evidence'>,
): { step: number; quote: string }[] {
  if (result.step === null) return [];
  if (result.evidence)
    return result.evidence.map(({ step, quote }) => ({ step, quote: trimmed(quote) }));
  const lines: { step: number; quote: string }[] = [];
  for (const quote of quotedIn(result.reason))
    for (const step of [result.step, result.step + 1]) lines.push({ step, quote: trimmed(quote) });
  return lines.filter(({ quote }) => quote.length >= 8);
}

/**
 * The “quoted” passages of a text, found by position: a pattern would rescan the rest of the text
 * from every opening mark that is never closed.
 */
function quotedIn(text: string): string[] {
  const quotes: string[] = [];
  for (let open = text.indexOf('“'); open >= 0; open = text.indexOf('“', open + 1)) {
    const close = text.indexOf('”', open + 1);
    if (close < 0) break;
    if (close > open + 1) quotes.push(text.slice(open + 1, close));
    open = close;
  }
  return quotes;
}

/** A quote as it appears in the run: without the marks of a cut (at its end, or at both ends). */
const trimmed = (quote: string) =>
  quote
    .replace(/(…|\.\.\.)$/, '')
    .replace(/^(…|\.\.\.)/, '')
    .trim();

/** Ranges of every case-insensitive occurrence of `needle` in the text nodes under `root`. */
export function rangesOf(root: Element, needle: string, limit = 200): Range[] {
  const ranges: Range[] = [];
  if (!needle) return ranges;
  const lower = needle.toLowerCase();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node && ranges.length < limit; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').toLowerCase();
    for (
      let at = text.indexOf(lower);
      at !== -1 && ranges.length < limit;
      at = text.indexOf(lower, at + lower.length)
    ) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      ranges.push(range);
    }
  }
  return ranges;
}

/** Sets the named highlight to `ranges` (a no-op in browsers without the API). */
export function setHighlight(name: string, ranges: Range[]): void {
  if (typeof CSS === 'undefined' || !('highlights' in CSS)) return;
  if (ranges.length === 0) CSS.highlights.delete(name);
  else CSS.highlights.set(name, new Highlight(...ranges));
}
