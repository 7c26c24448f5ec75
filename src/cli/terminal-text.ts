/**
 * Text from a trace made safe for a terminal. A trace is untrusted: an agent named with escape
 * sequences could set the window's title, clear the screen or hide lines when printed raw. Every
 * text output of the command line passes what it shows of a trace through `terminalSafe`, which
 * writes each control character (C0 but line break and tab, DEL, C1) and each bidirectional
 * override as a visible escape (`\x1b`, `\u202e`); JSON output escapes them by itself.
 */

/** Control characters and bidirectional controls (which can reorder what a line seems to say). */
const CONTROL =
  // eslint-disable-next-line no-control-regex -- these are the characters it finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One control character as it is shown: `\x1b`, `\u202e`. */
function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
}

/** A string with its control characters shown escaped (line breaks and tabs kept). */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, escaped);
}

/**
 * A value (a trace, an attribution, a diff) with every string in it escaped for the terminal; the
 * same object where nothing needed escaping, so a clean trace costs one walk and no copy.
 */
export function terminalSafe<Value>(value: Value): Value {
  return safe(value, 0) as Value;
}

/** Deeper than any value faultline builds; JSON input is refused past 256 levels anyway. */
const MAX_DEPTH = 300;

function safe(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return escapeControls(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const shown = safe(item, depth + 1);
      if (shown !== item) (copy ??= [...value])[index] = shown;
    });
    return copy ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value; // Maps, Sets, class instances
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const shown = safe(item, depth + 1);
    if (shown !== item) (copy ??= { ...value })[key] = shown;
  }
  return copy ?? value;
}
