/** Paging of every list the store returns. */

/** Which rows of a list: at most `limit` (default 50, at most 500), after skipping `offset`. */
export interface Page {
  limit?: number;
  offset?: number;
}

/** One page of a list, with how many rows the whole list has. */
export interface Paged<Item> {
  items: Item[];
  total: number;
  limit: number;
  offset: number;
}

/** Largest page a list returns. */
export const MAX_PAGE = 500;

/** A page's bounds with the defaults filled in and kept in range. */
export function pageBounds(page: Page): { limit: number; offset: number } {
  const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(page.limit ?? 50)));
  const offset = Math.max(0, Math.floor(page.offset ?? 0));
  return { limit, offset };
}
