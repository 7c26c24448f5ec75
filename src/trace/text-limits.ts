/**
 * Bounds on what a trace may make the code do with its text. Trace files, uploads and spans are
 * untrusted: a name is read as a name (cut to a sane length, the cut shown), and the few string
 * operations that patterns would make quadratic on hostile input (a run of spaces, of slashes)
 * are written as single passes. Every pattern in src/ is checked by the lint rules
 * `regexp/no-super-linear-*` (eslint.config.js); these helpers stand where no pattern can be linear.
 */

/** Longest name (agent, speaker, tool, trace id) kept whole; real ones are under 100 characters. */
export const MAX_NAME_LENGTH = 200;

/**
 * A name on one line (each run of line breaks a space), cut to MAX_NAME_LENGTH characters, the cut
 * shown (`…[+N characters]`). The result is never longer than the limit, so cutting twice changes
 * nothing.
 */
export function cutName(given: string): string {
  // A name is one line: a line break in one (never in a real name) would break every table row.
  const name =
    given.includes('\n') || given.includes('\r') ? given.replace(/[\r\n]+/g, ' ') : given;
  if (name.length <= MAX_NAME_LENGTH) return name;
  // Room for the marker with the most digits the count can have (it counts less than the length).
  const kept = MAX_NAME_LENGTH - `…[+${name.length} characters]`.length;
  return `${name.slice(0, kept)}…[+${name.length - kept} characters]`;
}

/** `text` without the characters of `chars` at its end (a URL's trailing slashes), in one pass. */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the characters of `chars` at its start, in one pass. */
export function trimStartOf(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start]!)) start += 1;
  return start === 0 ? text : text.slice(start);
}
