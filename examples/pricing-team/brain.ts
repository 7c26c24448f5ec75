/**
 * What the pricing team's scripted model answers, from the request alone, as a model would: the
 * coordinator (or supervisor) hands the question to the researcher, then to the analyst, then
 * reports the analyst's total; the researcher looks up the unit price and reports what the tool
 * returned; the analyst calculates 3 × the reported price + 4.00 and reports the total. So a wrong
 * report propagates to a wrong total, and a fixed one to the right total.
 *
 * With `fault`, the researcher's report says `unit price: 15.00 USD` after the tool returned 12.5
 * (the total becomes 49.00 instead of 41.50). It also answers faultline's fix requests as a model
 * that knows the researcher's right report, and rewrites every other step as it was.
 *
 * With `errors` (random-errors.ts) it errs at random, seeded, as a real model does on some runs and
 * not others: the researcher misreports the price on some runs, the analyst leaves the handling fee
 * out of its calculation on others, and some runs pass.
 *
 * It reads requests through faultline's own wire readers, so one brain serves Chat Completions
 * and the Responses API, streamed or not, whichever framework sends them.
 */
import { wireApiFor } from '../../src/recording/wire/registry.js';
import type { HistoryItem, ReplyContent } from '../../src/recording/wire/types.js';
import type { RandomErrors } from './random-errors.js';

type Role = 'coordinator' | 'researcher' | 'analyst';

/** The role an agent's instructions give it (the coordinator's mention the others). */
function roleOf(system: string): Role | undefined {
  if (/coordinator|supervisor/i.test(system)) return 'coordinator';
  if (/researcher/i.test(system)) return 'researcher';
  if (/analyst/i.test(system)) return 'analyst';
  return undefined;
}

/** The tools a request offers, by name (Chat Completions' `function.name`, Responses' `name`). */
function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return tools.map((tool) =>
    String((tool.function as { name?: string } | undefined)?.name ?? tool.name ?? ''),
  );
}

const handoffTo = (tools: string[], agent: string) =>
  tools.find((name) => name.toLowerCase() === `transfer_to_${agent}`);

/** The last text an assistant wrote matching `pattern`, its first group. */
const lastSaid = (items: HistoryItem[], pattern: RegExp) =>
  items
    .filter((item) => item.role === 'assistant')
    .map((item) => pattern.exec(item.text)?.[1])
    .filter((found): found is string => found !== undefined)
    .at(-1);

/** The tool result that ends the history, when it answers `tool`. */
function lastResult(items: HistoryItem[], tool: string): string | undefined {
  const last = items.at(-1);
  if (last?.role !== 'tool') return undefined;
  const call = items
    .flatMap((item) => item.toolCalls ?? [])
    .find((candidate) => candidate.id === last.toolResult?.callId);
  return call?.name === tool || last.toolResult?.name === tool ? last.text : undefined;
}

const UNIT_PRICE = /unit price: ([\d.]+) USD/;
const TOTAL = /TOTAL: ([\d.]+) USD/;
const money = (value: string) => Number(value).toFixed(2);

/** A call id unique within a run: the agent and how long the history is. */
const callId = (role: Role, items: HistoryItem[]) => `call_${role}_${items.length}`;

/** The researcher's report of a looked-up price, right or (with the fault) wrong. */
export const report = (price: string, fault: boolean) =>
  `unit price: ${fault ? '15.00' : money(price)} USD`;

/** One agent's next step. */
function step(
  role: Role,
  items: HistoryItem[],
  tools: string[],
  fault: boolean,
  errors: RandomErrors | undefined,
): ReplyContent {
  const call = (name: string, args: unknown) => ({
    text: '',
    toolCalls: [{ id: callId(role, items), name, arguments: JSON.stringify(args) }],
  });
  if (role === 'coordinator') {
    const total = lastSaid(items, TOTAL);
    if (total) return { text: `TOTAL: ${total} USD`, toolCalls: [] };
    const next = lastSaid(items, UNIT_PRICE) ? 'analyst' : 'researcher';
    const handoff = handoffTo(tools, next);
    return handoff ? call(handoff, {}) : { text: `Ask the ${next}.`, toolCalls: [] };
  }
  if (role === 'researcher') {
    const price = lastResult(items, 'lookup_price');
    if (price === undefined) return call('lookup_price', { item: 'widget' });
    const handoff = handoffTo(tools, 'analyst');
    return {
      text: report(price, fault || errors?.researcherErrs() === true),
      toolCalls: handoff ? [{ id: callId(role, items), name: handoff, arguments: '{}' }] : [],
    };
  }
  const value = lastResult(items, 'calculate');
  if (value !== undefined) return { text: `TOTAL: ${money(value)} USD`, toolCalls: [] };
  const price = lastSaid(items, UNIT_PRICE) ?? '0';
  // The analyst's mistake, drawn on runs whose report was right (each run errs once at most): the
  // handling fee left out.
  if (price !== '15.00' && errors?.analystErrs() === true)
    return call('calculate', { expression: `3 * ${price}` });
  return call('calculate', { expression: `3 * ${price} + 4` });
}

/**
 * A fix request (faultline's replay --fix-model, verify): the researcher's report as it should
 * have been, from the lookup it follows; any other step as it was (each did what it was told).
 */
function fixFor(prompt: string): ReplyContent {
  const target = /Step to rewrite: Step \d+ - (.+) \(agent\)/.exec(prompt)?.[1] ?? '';
  const said =
    /\nIt said:\n([\s\S]*?)(?:\nIt called tools:\n([\s\S]*?))?\n\nWhy it was blamed:/.exec(prompt);
  const text = said?.[1] === '(nothing)' ? '' : (said?.[1] ?? '');
  const calls = (said?.[2] ?? '')
    .split('\n')
    .map((line) => /^(\w+)\((.*)\)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ name: match[1]!, arguments: match[2] || '{}' }));
  let content = text.includes(calls.map((call) => call.name)[0] ?? '\u0000') ? '' : text;
  if (/researcher/i.test(target) && UNIT_PRICE.test(content)) {
    const price = [...prompt.matchAll(/- lookup_price \(tool\):\n([\d.]+)/g)].at(-1)?.[1];
    if (price) content = report(price, false);
  }
  return { text: JSON.stringify({ content, toolCalls: calls }), toolCalls: [] };
}

/** The scripted answer to a model call on `path` (`/v1/chat/completions`, `/v1/responses`). */
export function pricingAnswer(
  path: string,
  body: Record<string, unknown>,
  fault: boolean,
  errors?: RandomErrors,
): ReplyContent {
  const api = wireApiFor(path.split('?')[0]!);
  if (!api) return { text: `not a model call: ${path}`, toolCalls: [] };
  const request = api.readRequest(body);
  if (request.system.startsWith('You rewrite one step'))
    return fixFor(request.items.map((item) => item.text).join('\n'));
  const role = roleOf(request.system);
  if (!role) return { text: 'I only play the pricing team.', toolCalls: [] };
  return step(role, request.items, toolNames(body), fault, errors);
}
