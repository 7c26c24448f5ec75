/**
 * Assembles a canonical Trace from the draft steps an importer collects, so that every importer
 * numbers steps, names agents and canonicalises labels the same way.
 */
import { canonicalAgentName, matchAgentName, roleOfSpeaker } from './agents.js';
import { mastCode } from './mast.js';
import { cutName } from './text-limits.js';
import type { AgentInfo, Step, StepRole, Trace, TraceLabels, TraceOutcome } from './model.js';

/** A step as an importer sees it; index and canonical agent are filled in by `buildTrace`. */
export interface DraftStep {
  speaker: string;
  /** Overrides the role judged from the speaker's name. */
  role?: StepRole;
  /** Overrides the canonical agent judged from the speaker's name. */
  agent?: string;
  content: string;
  toolCalls?: Step['toolCalls'];
  toolResults?: Step['toolResults'];
  timestamp?: string;
  error?: string;
  span?: Step['span'];
  logprobs?: Step['logprobs'];
}

/** Everything about a trace except its steps' numbering and the derived agent list. */
export interface DraftTrace {
  id: string;
  format: string;
  source?: string;
  question?: string;
  groundTruth?: string;
  outcome?: TraceOutcome;
  steps: DraftStep[];
  metadata?: Record<string, unknown>;
  labels?: TraceLabels;
  reference?: string;
}

/** A tool call or result with its name cut like any name (the same object when it is short). */
function withShortName<Item extends { name?: string }>(item: Item): Item {
  return item.name === undefined || item.name === cutName(item.name)
    ? item
    : { ...item, name: cutName(item.name) };
}

/** Numbers the steps, canonicalises agents and labels, and lists the agents in order of appearance. */
export function buildTrace(draft: DraftTrace): Trace {
  const steps: Step[] = draft.steps.map((step, index) => {
    const built: Step = {
      index,
      // Names are cut where they are read: a hostile file's 50 MB name is not carried further.
      agent: step.agent !== undefined ? cutName(step.agent) : canonicalAgentName(step.speaker),
      speaker: cutName(step.speaker),
      role: step.role ?? roleOfSpeaker(step.speaker),
      content: step.content,
    };
    if (step.toolCalls && step.toolCalls.length > 0)
      built.toolCalls = step.toolCalls.map((call) => withShortName(call));
    if (step.toolResults && step.toolResults.length > 0)
      built.toolResults = step.toolResults.map((result) => withShortName(result));
    if (step.timestamp) built.timestamp = step.timestamp;
    if (step.error) built.error = step.error;
    if (step.span) built.span = step.span;
    if (step.logprobs) built.logprobs = step.logprobs;
    return built;
  });

  const agents = new Map<string, AgentInfo>();
  for (const step of steps) {
    const known = agents.get(step.agent);
    if (known) {
      known.steps += 1;
      // An agent that also speaks is an agent, whatever its first step was (a failure, a relay).
      if (step.role === 'agent') known.role = 'agent';
    } else agents.set(step.agent, { name: step.agent, role: step.role, steps: 1 });
  }

  const trace: Trace = {
    id: cutName(draft.id),
    format: draft.format,
    outcome: draft.outcome ?? 'unknown',
    steps,
    agents: [...agents.values()],
    metadata: draft.metadata ?? {},
  };
  if (draft.source !== undefined) trace.source = draft.source;
  if (draft.question) trace.question = draft.question;
  if (draft.groundTruth) trace.groundTruth = draft.groundTruth;
  if (draft.reference) trace.reference = draft.reference;
  if (draft.labels) {
    const labels: TraceLabels = {};
    const names = [...agents.keys()];
    if (draft.labels.agent) labels.agent = matchAgentName(draft.labels.agent, names);
    if (draft.labels.agents && draft.labels.agents.length > 0) {
      labels.agents = [...new Set(draft.labels.agents.map((name) => matchAgentName(name, names)))];
      labels.agent ??= labels.agents[0];
    }
    if (draft.labels.step !== undefined) labels.step = draft.labels.step;
    if (draft.labels.reason) labels.reason = draft.labels.reason;
    if (draft.labels.proof) labels.proof = draft.labels.proof;
    // An empty list is a label too: the run was judged and no mode was found.
    if (draft.labels.modes)
      labels.modes = [...new Set(draft.labels.modes.map((mode) => mastCode(mode) ?? mode))].sort();
    if (draft.labels.faults && draft.labels.faults.length > 0)
      labels.faults = draft.labels.faults.map((fault) => ({
        agent: matchAgentName(fault.agent, names),
        mode: mastCode(fault.mode) ?? fault.mode,
      }));
    if (Object.keys(labels).length > 0) trace.labels = labels;
  }
  return trace;
}
