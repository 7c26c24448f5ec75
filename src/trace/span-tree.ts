/**
 * Spans as the tree they describe, for reading in causal order (spans.ts): each span id once (an
 * export that repeats a span, say as a nested row and again at the top, gives one span), children
 * under their parent in start order, and a walk that visits a span, then its children, then leaves
 * it, so that a container's own step can follow what it contains.
 */

/** The fields the tree needs of a span. */
export interface TreeSpan {
  id: string;
  parentId?: string;
  /** Sort key: start time in nanoseconds, 0 when unknown. */
  start: bigint;
}

/** Spans arranged by parent, each list in start order (document order among equal starts). */
export interface SpanTree<Span extends TreeSpan> {
  /** Spans whose parent is not among the spans (or that are in a parent cycle), in start order. */
  roots: Span[];
  children: Map<string, Span[]>;
  /** Each span id's first span. */
  byId: Map<string, Span>;
}

/** Orders by start time, then by the order the source listed them in. */
function byStart<Span extends TreeSpan>(spans: Span[], order: Map<Span, number>): Span[] {
  return spans.sort((left, right) =>
    left.start < right.start
      ? -1
      : left.start > right.start
        ? 1
        : (order.get(left) ?? 0) - (order.get(right) ?? 0),
  );
}

/**
 * The spans' tree. A span whose id was seen already is dropped (the first is kept: exports repeat
 * a span whole). A span with an empty id is kept and has no children.
 */
export function spanTree<Span extends TreeSpan>(spans: readonly Span[]): SpanTree<Span> {
  const byId = new Map<string, Span>();
  const unique: Span[] = [];
  for (const span of spans) {
    if (span.id !== '' && byId.has(span.id)) continue;
    if (span.id !== '') byId.set(span.id, span);
    unique.push(span);
  }
  const order = new Map(unique.map((span, index) => [span, index]));
  const children = new Map<string, Span[]>();
  const roots: Span[] = [];
  for (const span of unique) {
    const parent = span.parentId;
    if (parent !== undefined && parent !== span.id && byId.has(parent)) {
      const siblings = children.get(parent);
      if (siblings) siblings.push(span);
      else children.set(parent, [span]);
    } else roots.push(span);
  }
  for (const siblings of children.values()) byStart(siblings, order);
  byStart(roots, order);
  // Spans in a parent cycle are reached from no root: the first of each cycle becomes one.
  const reached = new Set<Span>();
  const mark = (from: Span[]) => {
    const pending = [...from];
    while (pending.length > 0) {
      const span = pending.pop()!;
      if (reached.has(span)) continue;
      reached.add(span);
      pending.push(...(children.get(span.id) ?? []));
    }
  };
  mark(roots);
  for (const span of unique)
    if (!reached.has(span)) {
      const cycle = children.get(span.parentId ?? '') ?? [];
      children.set(
        span.parentId ?? '',
        cycle.filter((sibling) => sibling !== span),
      );
      roots.push(span);
      mark([span]);
    }
  return { roots, children, byId };
}

/** What a walk does on entering a span (before its children) and on leaving it (after them). */
export interface SpanVisitor<Span> {
  enter(span: Span, hasChildren: boolean): void;
  leave(span: Span, hasChildren: boolean): void;
}

/** Visits every span of the tree depth first, with its own stack (trees can be deep). */
export function walkSpanTree<Span extends TreeSpan>(
  tree: SpanTree<Span>,
  visitor: SpanVisitor<Span>,
): void {
  const pending: { span: Span; leaving: boolean }[] = [];
  for (let index = tree.roots.length - 1; index >= 0; index -= 1)
    pending.push({ span: tree.roots[index]!, leaving: false });
  while (pending.length > 0) {
    const { span, leaving } = pending.pop()!;
    const children = (span.id !== '' && tree.children.get(span.id)) || [];
    if (leaving) {
      visitor.leave(span, children.length > 0);
      continue;
    }
    visitor.enter(span, children.length > 0);
    pending.push({ span, leaving: true });
    for (let index = children.length - 1; index >= 0; index -= 1)
      pending.push({ span: children[index]!, leaving: false });
  }
}
