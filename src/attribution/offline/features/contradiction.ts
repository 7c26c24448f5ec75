/**
 * A step that contradicts the tool output it just read: the tool returned a quantity under a name
 * (`unit_price: 12.5`, `"total": 40`) and the agent turn right after restates that name with
 * another value (`unit price: 15.00 USD`). Read from the text alone, so it means the same in any
 * system; the step feature `contradicts_tool_output` and the reason's "reports 15.00 where
 * lookup_price returned 12.5" both come from here.
 *
 * A tool's output is read however the framework escaped it on its way to the model: JSON
 * (`"unit_price": 12.5`), JSON inside a JSON string (`\"unit_price\": 12.5`), LlamaIndex.TS's
 * quote-stripped JSON (`{\item\:\widget\,\unit_price\:12.5}`), Python reprs
 * (`'unit_price': Decimal('12.5')`), `key: value` and `key = value` lines, a currency before the
 * value (`$12.5`, `USD 12.5`); an output that is one bare number is named by its tool, less its
 * verb (`lookup_price` returning `12.5`: the price). Quantities are compared by value: `12.5` =
 * `12.50`, `1,250` = `1250`.
 */
import type { Step } from '../../../trace/model.js';

/** What a contradicting step reports, and what the tool before it gave. */
export interface Contradiction {
  /** The quantity's name as the tool wrote it, words separated by spaces. */
  name: string;
  /** The value the step reports, and the one the tool returned, as written. */
  reported: string;
  given: string;
  /** The tool (its result's name, else the step's speaker) and its step. */
  tool: string;
  toolStep: number;
}

/**
 * A named quantity in a tool output: `name: 12.5`, `"name": 12.5`, `name = 12.5`, with up to four
 * quotes or backslashes around the name and before the value (escaped and quote-stripped JSON), a
 * Python constructor (`Decimal('12.5')`) and a currency before the value.
 */
const GIVEN =
  /["'\\]{0,4}([a-z][a-z _-]{2,40}?)["'\\]{0,4}\s*[:=]\s*(?:[a-z]{1,10}\()?["'\\]{0,4}(?:[$€£]|(?:usd|eur|gbp) ?)?(-?\d[\d,]*(?:\.\d+)?)/iy;
/** Where a GIVEN match can end its name: a `:` or `=` with a number after it. */
const VALUE_AFTER = /[:=]\s*(?:[a-z]{1,10}\()?["'\\]{0,4}(?:[$€£]|(?:usd|eur|gbp) ?)?-?\d/gi;
/** The most characters a GIVEN match spans before its `:` or `=`, whitespace aside. */
const MAX_BEFORE = 4 + 41 + 4;
/** Fewest letters of a quantity's name, so that `id: 3` or `x = 2` is not read as one. */
const MIN_NAME_LETTERS = 4;
/** How far (characters, no digit between) a restated name may be from its value. */
const GAP = 20;
/** Tool outputs read back from the step (a call's several results). */
const MAX_OUTPUTS = 3;
/** Longest text read of each step (names and values sit near the head of a tool's output). */
const MAX_TEXT = 4_000;

const normalised = (text: string) => text.slice(0, MAX_TEXT).toLowerCase().replace(/[_-]+/g, ' ');
const valueOf = (written: string) => Number(written.replace(/,/g, ''));
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A tool's output, not an agent's turn. */
const isToolOutput = (step: Step) =>
  step.role === 'tool' || (step.role !== 'agent' && (step.toolResults?.length ?? 0) > 0);

/**
 * GIVEN's matches in `text`, as a global scan finds them, tried only where one can start: within
 * reach of a `:` or `=` with a number after it. A scan trying every position cost a tenth of the
 * offline model's time on long tool outputs.
 */
function* givenMatches(text: string): Generator<RegExpExecArray> {
  const windows: Array<[number, number]> = [];
  for (const value of text.matchAll(VALUE_AFTER)) {
    let from = value.index;
    while (from > 0 && /\s/.test(text[from - 1]!)) from -= 1;
    windows.push([Math.max(0, from - MAX_BEFORE), value.index]);
  }
  // In order of where they start, so that matches come as a scan from the left finds them.
  windows.sort((left, right) => left[0] - right[0]);
  let next = 0;
  for (const [low, high] of windows) {
    for (let start = Math.max(low, next); start < high; start += 1) {
      GIVEN.lastIndex = start;
      const match = GIVEN.exec(text);
      if (!match) continue;
      next = GIVEN.lastIndex;
      start = next - 1;
      yield match;
    }
  }
}

/** A tool output that is one number and nothing else (`12.5`, `"12.50"`, `$12.50`). */
const BARE_VALUE = /^\s*["'\\]{0,4}(?:[$€£]\s?)?(-?\d[\d,]*(?:\.\d+)?)["'\\]{0,4}\s*$/;
/** A tool name's verb, which does not name the quantity it returns (`lookup_price`: price). */
const TOOL_VERB =
  /^(?:get|lookup|look|up|fetch|find|search|query|read|load|check|retrieve|compute|calculate|calc)[\s_-]+/i;

/**
 * The named quantities of a tool output, first value of each name. An output that is one bare
 * number is named by its tool, less the verb: `lookup_price` returning `12.5` gives `price: 12.5`.
 */
function quantitiesOf(step: Step): Map<string, string> {
  const found = new Map<string, string>();
  const text = [step.content, ...(step.toolResults ?? []).map((result) => result.content)].join(
    '\n',
  );
  for (const match of givenMatches(text.slice(0, MAX_TEXT))) {
    const name = normalised(match[1]!).replace(/\s+/g, ' ').trim();
    if (name.replace(/[^a-z]/g, '').length < MIN_NAME_LETTERS || found.has(name)) continue;
    found.set(name, match[2]!);
  }
  if (found.size === 0 && step.content.length < 40) {
    const bare = BARE_VALUE.exec(step.content);
    let tool = (step.toolResults?.[0]?.name ?? step.speaker).replace(/[_-]+/g, ' ');
    while (TOOL_VERB.test(tool)) tool = tool.replace(TOOL_VERB, '');
    const name = normalised(tool).replace(/\s+/g, ' ').trim();
    if (bare && name.replace(/[^a-z]/g, '').length >= MIN_NAME_LETTERS) found.set(name, bare[1]!);
  }
  return found;
}

/**
 * Where the agent turn at `index` restates a quantity one of the tool outputs right before it
 * gave, with another value: the first such quantity; undefined where it restates none so, or is
 * not an agent's turn after a tool output.
 */
export function contradictionOf(steps: readonly Step[], index: number): Contradiction | undefined {
  const step = steps[index];
  if (step?.role !== 'agent') return undefined;
  let text: string | undefined;
  for (let back = index - 1; back >= 0 && index - back <= MAX_OUTPUTS; back -= 1) {
    const output = steps[back]!;
    if (!isToolOutput(output)) break;
    for (const [name, given] of quantitiesOf(output)) {
      text ??= normalised(step.content);
      if (!text.includes(name.split(' ')[0]!)) continue; // the pattern below needs its first word
      const restated = new RegExp(
        `\\b${escaped(name).replace(/ /g, '\\s+')}\\b[^\\d\\n]{0,${GAP}}?(-?\\d[\\d,]*(?:\\.\\d+)?)`,
      ).exec(text);
      if (!restated || valueOf(restated[1]!) === valueOf(given)) continue;
      return {
        name,
        reported: restated[1]!,
        given,
        tool: output.toolResults?.[0]?.name ?? output.agent,
        toolStep: back,
      };
    }
  }
  return undefined;
}
