/**
 * What OpenInference's LangChain.js instrumentation (`@arizeai/openinference-instrumentation-
 * langchain` 4.1) writes that needs reading apart from other OpenInference spans:
 *
 * - LangGraph agents: a graph's node runs as a CHAIN span named as the node, whose `metadata`
 *   (JSON text) has that `langgraph_node`; the outermost such span above a model call (a
 *   supervisor's `researcher` node, not the ReAct agent's inner `agent` / `tools` nodes) is the
 *   agent it speaks for (`graphNodeAgents`).
 * - LangChain's serialized objects: a model's `output.value` is `{"generations": [[{text,
 *   message}]]}`, and a tool's is its ToolMessage (`{"output": {"lc": 1, "kwargs": {"content"}}}`)
 *   or, for a handoff, a LangGraph `Command` whose update carries the ToolMessage: read as the
 *   text and tool calls they hold ( `generationsOutput`, `toolOutputText`).
 * - Control flow: LangGraph hands over between agents by raising `ParentCommand` (and pauses with
 *   `GraphInterrupt`), which the instrumentation records as an ERROR status; such a span did not
 *   fail (`isControlFlow`).
 */
import { argumentsText, isObject, parseJsonOr, textOf } from '../format.js';
import type { ToolCall } from '../model.js';
import { SPAN_KIND, type FlatSpan } from './openinference-spans.js';

/** Exceptions LangGraph raises to steer a graph, not to say something failed. */
const CONTROL_FLOW = /^(ParentCommand|GraphInterrupt|NodeInterrupt|GraphBubbleUp|Command)\b/;

/** True for an error that is LangGraph's control flow (`ParentCommand`: a handoff). */
export function isControlFlow(error: string): boolean {
  return CONTROL_FLOW.test(error.trimStart());
}

/** Nodes every LangGraph graph has, which no agent is. */
const GRAPH_ENDS = new Set(['__start__', '__end__']);

/** The `langgraph_node` of a span's metadata, read only where the text names one. */
function graphNode(span: FlatSpan): string | undefined {
  const metadata = span.attributes.metadata;
  if (typeof metadata !== 'string' || !metadata.includes('"langgraph_node"')) return undefined;
  const parsed = parseJsonOr(metadata);
  const node = isObject(parsed) ? parsed.langgraph_node : undefined;
  return typeof node === 'string' && !GRAPH_ENDS.has(node) ? node : undefined;
}

/**
 * The CHAIN spans that are a graph's agents: a node's own span (named as its `langgraph_node`)
 * with no such span above it. By span id, the node's name.
 */
export function graphNodeAgents(spans: readonly FlatSpan[]): Map<string, string> {
  const nodes = new Map<string, { span: FlatSpan; node: string }>();
  for (const span of spans) {
    if (String(span.attributes[SPAN_KIND] ?? '').toUpperCase() !== 'CHAIN') continue;
    const node = graphNode(span);
    if (node !== undefined && node === span.name) nodes.set(span.spanId, { span, node });
  }
  const agents = new Map<string, string>();
  if (nodes.size === 0) return agents;
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  for (const [id, { span, node }] of nodes) {
    const seen = new Set([id]);
    let parent = span.parentId ? byId.get(span.parentId) : undefined;
    let nested = false;
    while (parent && !seen.has(parent.spanId)) {
      seen.add(parent.spanId);
      if (nodes.has(parent.spanId)) {
        nested = true;
        break;
      }
      parent = parent.parentId ? byId.get(parent.parentId) : undefined;
    }
    if (!nested) agents.set(id, node);
  }
  return agents;
}

/** A LangChain serialized message (`{"lc": 1, "type": "constructor", "kwargs": {...}}`)'s text. */
function serializedText(value: unknown): string | undefined {
  if (!isObject(value) || value.lc !== 1 || !isObject(value.kwargs)) return undefined;
  return textOf(value.kwargs.content);
}

/** A LangChain model output `{"generations": [[{text, message}]]}`: its text and tool calls. */
export function generationsOutput(
  value: unknown,
): { text: string; toolCalls: ToolCall[] } | undefined {
  const parsed = parseJsonOr(value);
  if (!isObject(parsed) || !Array.isArray(parsed.generations)) return undefined;
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const generation of (parsed.generations as unknown[]).flat().filter(isObject)) {
    const message = isObject(generation.message) ? generation.message : {};
    const kwargs = isObject(message.kwargs) ? message.kwargs : {};
    const text =
      typeof generation.text === 'string' && generation.text
        ? generation.text
        : (serializedText(message) ?? '');
    if (text) texts.push(text);
    for (const call of Array.isArray(kwargs.tool_calls) ? kwargs.tool_calls.filter(isObject) : [])
      toolCalls.push({
        ...(typeof call.id === 'string' ? { id: call.id } : {}),
        name: String(call.name ?? 'unknown'),
        arguments: argumentsText(call.args),
      });
  }
  return { text: texts.join('\n'), toolCalls };
}

/**
 * A tool span's output as the tool's own text: a serialized ToolMessage's content, a LangGraph
 * `Command`'s ToolMessage (a handoff's "Successfully transferred to …"), else the value as text.
 */
export function toolOutputText(value: unknown): string {
  const parsed = parseJsonOr(value);
  const inner = isObject(parsed) && 'output' in parsed ? parsed.output : parsed;
  const message = serializedText(inner);
  if (message !== undefined) return message;
  if (isObject(inner) && inner.lg_name === 'Command' && isObject(inner.update)) {
    const messages = Array.isArray(inner.update.messages) ? inner.update.messages : [];
    const said = messages.map(serializedText).filter((text) => text !== undefined);
    if (said.length > 0) return said.at(-1)!;
  }
  return typeof value === 'string' ? value : textOf(inner);
}
