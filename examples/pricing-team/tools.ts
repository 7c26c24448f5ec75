/**
 * The pricing team's task, its two tools and the right answer, shared by the framework apps
 * (openai-agents.ts, langgraph.ts, llamaindex.ts), their scripted model and check.ts; and how an
 * app writes its answer file.
 */
import { renameSync, writeFileSync } from 'node:fs';

/** The question every app is asked. */
export const TASK = 'How much do 3 widgets cost in total, with the 4.00 USD handling fee?';

/** The right answer: 3 × 12.50 + 4.00. */
export const EXPECTED_TOTAL = '41.50';

/** The price list `lookup_price` reads. */
const PRICES: Record<string, number> = { widget: 12.5, gadget: 7.25 };

/** `lookup_price({item})`: the unit price in USD, as the tool returns it ("12.5"). */
export function lookupPrice(item: string): string {
  const price = PRICES[item.trim().toLowerCase().replace(/s$/, '')];
  return price === undefined ? `unknown item: ${item}` : String(price);
}

/**
 * `calculate({expression})`: a sum of products of decimal numbers ("3 * 12.5 + 4"), the only
 * arithmetic the team needs; anything else is refused rather than evaluated.
 */
export function calculate(expression: string): string {
  if (!/^[\d.\s*+]+$/.test(expression)) return `cannot calculate: ${expression}`;
  const total = expression
    .split('+')
    .map((term) => term.split('*').reduce((product, factor) => product * Number(factor), 1))
    .reduce((sum, term) => sum + term, 0);
  return Number.isFinite(total) ? String(total) : `cannot calculate: ${expression}`;
}

/**
 * The header naming the run a call belongs to, when `FAULTLINE_RUN` is set (`faultline inject`
 * sets it; set it yourself to choose a recorded run's id); without it the proxy tells runs apart
 * by the pause between them.
 */
export function runHeaders(): Record<string, string> {
  const run = process.env.FAULTLINE_RUN;
  return run ? { 'x-faultline-run': run } : {};
}

/**
 * Writes an app's answer file whole: into a temporary file beside it, then renamed over it, so a
 * check reading it meanwhile sees the previous answer or this one, never a half-written file.
 */
export function writeAnswer(file: string, answer: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ answer }) + '\n');
  renameSync(temporary, file);
}
