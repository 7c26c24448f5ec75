/**
 * Text highlights inside steps (the verdict's evidence, search matches) with the CSS Custom
 * Highlight API: no markup is inserted into trace text, so it stays inert.
 */

/**
 * The quoted evidence in a reason: the offline method's `Evidence: "…" / step 4 (Coder): "…"`
 * (evidence.ts; a quote of the next step carries its number and agent) and “…” quotes.
 */
export function evidenceQuotes(reason: string): string[] {
  const quotes: string[] = [];
  const evidence = /Evidence: (.*)$/s.exec(reason);
  if (evidence)
    for (const part of evidence[1]!.split(/"\s+\/\s+(?=step \d+ \(|")/))
      quotes.push(part.replace(/^\s*(step \d+ \([^)]*\): )?"/, '').replace(/"\s*\.?\s*$/, ''));
  for (const match of reason.matchAll(/“([^”]+)”/g)) quotes.push(match[1]!);
  return quotes
    .map((quote) => quote.replace(/(…|\.\.\.)$/, '').trim())
    .filter((quote) => quote.length >= 8);
}

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
