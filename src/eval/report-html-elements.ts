/** The HTML report's building blocks: escaping, tables of cells, clipped step text. */

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A table of cells already made; `wrong` marks rows (data-wrong) for the per-trace filter. */
export function table(
  head: string[],
  body: string[][],
  options: { id?: string; wrong?: readonly boolean[] } = {},
): string {
  const rows = body.map(
    (row, index) => `<tr${options.wrong?.[index] ? ' data-wrong="1"' : ''}>${row.join('')}</tr>`,
  );
  return `<table${options.id ? ` id="${options.id}"` : ''}><thead><tr>${head.map((cell) => `<th>${escapeHtml(cell)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export const td = (text: string, className = '') =>
  `<td${className ? ` class="${className}"` : ''}>${escapeHtml(text)}</td>`;

export function clip(text: string, limit = 2000): string {
  return text.length > limit
    ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`
    : text;
}

/** The paper-layout cells as an HTML table. */
export function paperTableHtml({ head, body }: { head: string[]; body: string[][] }): string {
  return table(
    head,
    body.map((cells) => cells.map((cell) => td(cell))),
  );
}
