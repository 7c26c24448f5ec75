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

/**
 * The role of an agent: the researcher and the analyst by the tool they hold (a prompt may name
 * the agent it hands to: "hand off to the AnalystAgent"), the coordinator by its instructions.
 */
function roleOf(system: string, tools: readonly Tool[]): Role | undefined {
  if (tools.some((tool) => tool.name === 'lookup_price')) return 'researcher';
  if (tools.some((tool) => tool.name === 'calculate')) return 'analyst';
  if (/coordinator|supervisor/i.test(system) || tools.length > 0) return 'coordinator';
  return undefined;
}

/** A tool a request offers (Chat Completions' `function`, the Responses API's tool itself). */
interface Tool {
  name: string;
  description: string;
}

/** The tools a request offers. */
function toolsOf(body: Record<string, unknown>): Tool[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return tools.map((tool) => {
    const declared = (tool.function ?? tool) as { name?: unknown; description?: unknown };
    return { name: String(declared.name ?? ''), description: String(declared.description ?? '') };
  });
}

/**
 * The handoff to `agent` a request's tools offer: a `transfer_to_<agent>` tool (Agents SDK,
 * LangGraph), LlamaIndex.TS's `handOff`, whose description lists the agents it can hand to
 * (`{"ResearchAgent": "Looks up unit prices."}`): the one whose name starts like the role; or
 * VoltAgent's `delegate_task`, the agents listed in the supervisor's prompt
 * (`<specialized_agents>\n- Researcher: …`), given `task` to do.
 */
function handoffTo(
  tools: readonly Tool[],
  agent: Role,
  system = '',
  task = '',
): { name: string; args: unknown } | undefined {
  const transfer = tools.find((tool) => tool.name.toLowerCase() === `transfer_to_${agent}`);
  if (transfer) return { name: transfer.name, args: {} };
  if (tools.some((tool) => tool.name === 'delegate_task')) {
    const listed = [...system.matchAll(/^- (\w+): /gm)].map((match) => match[1]!);
    const target = listed.find((name) => name.toLowerCase().startsWith(agent.slice(0, 5)));
    return target ? { name: 'delegate_task', args: { task, targetAgents: [target] } } : undefined;
  }
  const handOff = tools.find((tool) => tool.name === 'handOff');
  const listed = /\{[^{}]*\}/.exec(handOff?.description ?? '')?.[0];
  if (!listed) return undefined;
  const names = Object.keys(JSON.parse(listed) as Record<string, string>);
  const toAgent = names.find((name) => name.toLowerCase().startsWith(agent.slice(0, 5)));
  return toAgent
    ? { name: 'handOff', args: { toAgent, reason: `the ${agent} is next` } }
    : undefined;
}

/**
 * The last text an assistant wrote matching `pattern`, its first group; or, given more roles, the
 * last such text any of them wrote (VoltAgent's supervisor hears its agents in `delegate_task`'s
 * results, and an agent hears what it is told in the task it is given).
 */
const lastSaid = (
  items: HistoryItem[],
  pattern: RegExp,
  roles: readonly HistoryItem['role'][] = ['assistant'],
) =>
  items
    .filter((item) => roles.includes(item.role))
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

/**
 * The unit price in a lookup's result however the framework wrote it: `12.5`, JSON
 * (`{"unit_price": 12.5}`) or LlamaIndex.TS's quote-stripped JSON (`{\\unit_price\\:12.5}`).
 */
const priceIn = (result: string) =>
  /unit_price\W{0,4}(\d+(?:\.\d+)?)/.exec(result)?.[1] ??
  /^\s*(\d+(?:\.\d+)?)\s*(?:\n|$)/.exec(result)?.[1];

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
  system: string,
  items: HistoryItem[],
  tools: readonly Tool[],
  fault: boolean,
  errors: RandomErrors | undefined,
): ReplyContent {
  const call = (name: string, args: unknown) => ({
    text: '',
    toolCalls: [{ id: callId(role, items), name, arguments: JSON.stringify(args) }],
  });
  if (role === 'coordinator') {
    const heard = ['assistant', 'tool'] as const;
    const total = lastSaid(items, TOTAL, heard);
    if (total) return { text: `TOTAL: ${total} USD`, toolCalls: [] };
    const price = lastSaid(items, UNIT_PRICE, heard);
    const next = price ? 'analyst' : 'researcher';
    const task = price
      ? `Work out the total of 3 widgets at the reported unit price: ${price} USD, with the 4.00 USD handling fee.`
      : 'Look up the unit price of a widget.';
    const handoff = handoffTo(tools, next, system, task);
    return handoff ? call(handoff.name, handoff.args) : { text: `Ask the ${next}.`, toolCalls: [] };
  }
  if (role === 'researcher') {
    const result = lastResult(items, 'lookup_price');
    const price = result === undefined ? undefined : priceIn(result);
    if (price === undefined) return call('lookup_price', { item: 'widget' });
    const handoff = handoffTo(tools, 'analyst');
    return {
      text: report(price, fault || errors?.researcherErrs() === true),
      toolCalls: handoff
        ? [{ id: callId(role, items), name: handoff.name, arguments: JSON.stringify(handoff.args) }]
        : [],
    };
  }
  const value = lastResult(items, 'calculate');
  if (value !== undefined) return { text: `TOTAL: ${money(value)} USD`, toolCalls: [] };
  const price = lastSaid(items, UNIT_PRICE) ?? lastSaid(items, UNIT_PRICE, ['user']) ?? '0';
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
  if (/research/i.test(target) && UNIT_PRICE.test(content)) {
    // The lookup's output, however many lines it spans (a quote-stripped object spans several).
    const looked = [...prompt.matchAll(/- lookup_price \(tool\):\n([^]{0,200})/g)].at(-1)?.[1];
    const price = looked === undefined ? undefined : priceIn(looked);
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
  const tools = toolsOf(body);
  const role = roleOf(request.system, tools);
  if (!role) return { text: 'I only play the pricing team.', toolCalls: [] };
  return step(role, request.system, request.items, tools, fault, errors);
}
