/** Previous / next through a paged list, with where the shown rows stand ("1–50 of 1,234"). */
import type { PageInfo } from './api.js';
import { element } from './dom.js';

/** A pager's element and how to update it after a page arrives. */
export interface Pager {
  element: HTMLElement;
  show(page: PageInfo, rows: number): void;
}

const count = (value: number) => value.toLocaleString('en');

/** A pager that asks for the page at an offset with `go`. */
export function pager(label: string, go: (offset: number) => void): Pager {
  const previous = element('button', { type: 'button' }, '← Previous');
  const next = element('button', { type: 'button' }, 'Next →');
  const where = element('span', { class: 'meta' });
  let current: PageInfo = { total: 0, limit: 50, offset: 0 };
  previous.addEventListener('click', () => go(Math.max(0, current.offset - current.limit)));
  next.addEventListener('click', () => go(current.offset + current.limit));
  const nav = element('nav', { class: 'pager', 'aria-label': label }, previous, where, next);
  return {
    element: nav,
    show(page, rows) {
      current = page;
      where.textContent =
        rows === 0
          ? `none of ${count(page.total)}`
          : `${count(page.offset + 1)}–${count(page.offset + rows)} of ${count(page.total)}`;
      previous.disabled = page.offset === 0;
      next.disabled = page.offset + rows >= page.total;
      nav.hidden = page.total <= page.limit && page.offset === 0;
    },
  };
}
