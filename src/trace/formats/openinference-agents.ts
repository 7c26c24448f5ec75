/**
 * Who each OpenInference AGENT span's agent is, from what the spans say, never from a span's name
 * (`CodeAgent.run`) nor a model's (`anthropic/claude-3-7-sonnet-latest`):
 *
 * 1. the agent's own name: OpenInference `agent.name`, GenAI `gen_ai.agent.name`, LangGraph's
 *    `graph.node.id`;
 * 2. the name its manager calls it by. smolagents' instrumentation lists a manager's team on the
 *    manager's run span (`smolagents.managed_agents.{i}.name`), and a manager calls a managed agent
 *    as it calls a tool, by that name (a tool call, or code `search_agent(task=...)` from a code
 *    agent). A managed run's name is the listed one its manager's latest model call, before the
 *    run began, called (or the only one listed); a run inside a tool span is named by the tool;
 * 3. otherwise `manager` for an agent that manages others, and `agent` for any other.
 */
import { indexed, SPAN_KIND, type FlatSpan } from './openinference-spans.js';

/** The attributes an agent's own name is read from, in order. */
const NAME_ATTRIBUTES = ['agent.name', 'gen_ai.agent.name', 'graph.node.id'] as const;

const kindOf = (span: FlatSpan) => String(span.attributes[SPAN_KIND] ?? '').toUpperCase();

/** The agent's name its own attributes give, if any. */
function ownName(span: FlatSpan): string | undefined {
  for (const key of NAME_ATTRIBUTES) {
    const value = span.attributes[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

/** The agents a manager's run span lists as its team (smolagents). */
function managedNames(span: FlatSpan): string[] {
  return [...indexed(span.attributes, 'smolagents.managed_agents').values()]
    .map((entry) => entry.name)
    .filter((name): name is string => typeof name === 'string' && name.length > 0);
}

/** True when a model call's output calls `name`: as a tool call, or in code it wrote. */
function calls(llm: FlatSpan, name: string): boolean {
  for (const [key, value] of Object.entries(llm.attributes)) {
    if (typeof value !== 'string') continue;
    if (key.endsWith('tool_call.function.name') && value === name) return true;
    if (
      (key.startsWith('llm.output_messages.') || key === 'output.value') &&
      value.includes(`${name}(`)
    )
      return true;
  }
  return false;
}

/** The name each AGENT span's agent goes by (see the header), by span id. */
export function agentNames(spans: readonly FlatSpan[]): Map<string, string> {
  const byId = new Map<string, FlatSpan>();
  for (const span of spans) if (!byId.has(span.spanId)) byId.set(span.spanId, span);
  /** The nearest AGENT span above, and the TOOL span nearest to the span on the way, if any. */
  const above = (span: FlatSpan) => {
    const seen = new Set<string>([span.spanId]);
    let tool: FlatSpan | undefined;
    let current = span.parentId ? byId.get(span.parentId) : undefined;
    while (current && !seen.has(current.spanId)) {
      seen.add(current.spanId);
      const kind = kindOf(current);
      if (kind === 'AGENT') return { agent: current, tool };
      if (kind === 'TOOL') tool ??= current;
      current = current.parentId ? byId.get(current.parentId) : undefined;
    }
    return { agent: undefined, tool };
  };
  const agents = [...byId.values()].filter((span) => kindOf(span) === 'AGENT');
  const managers = new Set<FlatSpan>();
  const modelCalls = new Map<FlatSpan, FlatSpan[]>();
  for (const span of byId.values()) {
    const kind = kindOf(span);
    if (kind !== 'AGENT' && kind !== 'LLM') continue;
    const { agent } = above(span);
    if (!agent) continue;
    if (kind === 'AGENT') managers.add(agent);
    else {
      const list = modelCalls.get(agent);
      if (list) list.push(span);
      else modelCalls.set(agent, [span]);
    }
  }

  const names = new Map<string, string>();
  for (const span of agents) {
    const own = ownName(span);
    if (own) {
      names.set(span.spanId, own);
      continue;
    }
    const { agent: manager, tool } = above(span);
    const toolName = tool?.attributes['tool.name'];
    const team = manager ? managedNames(manager) : [];
    const latestCall = (manager ? (modelCalls.get(manager) ?? []) : [])
      .filter((call) => call.start <= span.start)
      .reduce<FlatSpan | undefined>(
        (latest, call) => (!latest || call.start >= latest.start ? call : latest),
        undefined,
      );
    const called = latestCall ? team.find((name) => calls(latestCall, name)) : undefined;
    const passed =
      (typeof toolName === 'string' && toolName) ||
      called ||
      (team.length === 1 ? team[0] : undefined);
    names.set(
      span.spanId,
      passed || (managers.has(span) || managedNames(span).length > 0 ? 'manager' : 'agent'),
    );
  }
  return names;
}
