/**
 * The proxy's injector for a plan: it finds each target call (the agent's nth call of a run),
 * corrupts its reply or its request with the target's operator, and keeps what it did per run, so
 * the recorded run carries its label (agent, step of the injected call, mode) and an `injection`
 * record in its metadata (strategy, operator, the original answer beside the injected one).
 */
import { sameAgent } from '../../trace/agents.js';
import type { Trace, TraceLabels } from '../../trace/model.js';
import { callsText } from '../../trace/step-text.js';
import type { InjectedReply, Injector, ProxiedCall } from '../proxy/proxy.js';
import { recordingOf } from '../record/recording.js';
import type { ReplyContent, ReplyView } from '../wire/types.js';
import { asObject } from '../wire/types.js';
import type { Manipulator } from './manipulator.js';
import {
  MANIPULATOR,
  OPERATORS,
  withInstruction,
  type EarlierReply,
  type OperatorContext,
} from './operators.js';
import type { InjectionPlan, InjectionTarget, Strategy } from './plan.js';

/** How a target fared in a run. */
export type InjectionStatus =
  /** The call was changed. */
  | 'applied'
  /** The operator found nothing to change (no number, no code, no earlier answer). */
  | 'not-applicable'
  /** The manipulator gave no readable corruption (after its retry), or its call failed. */
  | 'manipulator-failed';

/** What was injected into one call of a run. */
export interface InjectionRecord {
  agent: string;
  occurrence: number;
  /** The agent's call index in the run, 0-based (the recording's `agentCall`). */
  agentCall: number;
  strategy: Strategy;
  mode: string;
  operator: string;
  status: InjectionStatus;
  /** The step of the injected call in the recorded run. */
  step?: number;
  /** Response corruption: the answer the upstream gave, and the one the client got instead. */
  original?: ReplyContent;
  injected?: ReplyContent;
  /** Prompt injection: the instruction added, or the operator's change in words. */
  instruction?: string;
}

/** The `metadata.injection` of an injected run. */
export interface InjectionMetadata {
  version: 1;
  /** The first applied injection's facts, for grouping (eval's per-mode and per-operator rows). */
  agent: string;
  step?: number;
  mode: string;
  strategy: Strategy;
  operator: string;
  original?: ReplyContent;
  targets: InjectionRecord[];
}

/** Settings of an injector. */
export interface InjectorOptions {
  plan: InjectionPlan;
  manipulator?: Manipulator;
  /** The run as recorded so far (operators that copy an earlier answer read it). */
  runSoFar?: (run: string) => Promise<Trace | undefined>;
  log?: (line: string) => void;
}

/** The agent replies of a recorded run (up to step `before`), oldest first. */
export function earlierReplies(trace: Trace | undefined, before = Infinity): EarlierReply[] {
  return (trace?.steps ?? [])
    .filter((step) => step.index < before)
    .filter((step) => step.role === 'agent' && !step.error)
    .map((step) => {
      const toolCalls = step.toolCalls ?? [];
      const onlyCalls = toolCalls.length > 0 && step.content === callsText(toolCalls);
      return { agent: step.agent, reply: { text: onlyCalls ? '' : step.content, toolCalls } };
    });
}

const content = (reply: ReplyView): ReplyContent => ({
  text: reply.text,
  toolCalls: reply.toolCalls,
});

/** Injects a plan's faults into the calls that pass through the proxy. */
export class PlanInjector implements Injector {
  private readonly runs = new Map<string, InjectionRecord[]>();

  private readonly options: InjectorOptions;

  constructor(options: InjectorOptions) {
    this.options = { ...options };
  }

  /** Reads the runs so far from a recorder (operators that copy an earlier answer need them). */
  readRunsFrom(recorder: { run(id: string): Promise<{ toTrace(): Trace }> }): void {
    this.options.runSoFar = async (run) => (await recorder.run(run)).toTrace();
  }

  /** What was injected into a run so far. */
  recordsOf(run: string): InjectionRecord[] {
    return this.runs.get(run) ?? [];
  }

  private targetOf(call: ProxiedCall, strategy: Strategy): InjectionTarget | undefined {
    return this.options.plan.targets.find(
      (target) =>
        target.strategy === strategy &&
        target.occurrence - 1 === call.agentCall &&
        sameAgent(target.agent, call.agent),
    );
  }

  private async contextOf(call: ProxiedCall, target: InjectionTarget): Promise<OperatorContext> {
    const trace = await this.options.runSoFar?.(call.run);
    return { target, request: call.request, earlier: earlierReplies(trace) };
  }

  private note(call: ProxiedCall, target: InjectionTarget, rest: Partial<InjectionRecord>): void {
    const record: InjectionRecord = {
      agent: call.agent,
      occurrence: target.occurrence,
      agentCall: call.agentCall,
      strategy: target.strategy,
      mode: target.mode,
      operator: target.operator,
      status: 'applied',
      ...rest,
    };
    this.runs.set(call.run, [...this.recordsOf(call.run), record]);
    this.options.log?.(
      `${call.run}: ${record.status === 'applied' ? 'injected' : `did not inject (${record.status})`} ${record.operator} (FM-${record.mode}, ${record.strategy}) into ${call.agent}'s call ${record.occurrence}`,
    );
  }

  async rewriteRequest(call: ProxiedCall, body: unknown): Promise<unknown> {
    const target = this.targetOf(call, 'prompt-injection');
    const object = asObject(body);
    if (!target || !object) return undefined;
    const context = await this.contextOf(call, target);
    if (target.operator === MANIPULATOR) {
      const instruction = await this.options.manipulator?.instruct(context);
      if (instruction === undefined) {
        this.note(call, target, { status: 'manipulator-failed' });
        return undefined;
      }
      this.note(call, target, { instruction });
      return withInstruction(object, call.api.name, instruction);
    }
    const operator = OPERATORS.get(target.operator);
    const changed =
      operator?.strategy === 'prompt-injection'
        ? operator.apply(object, call.api.name, context)
        : undefined;
    if (!changed) {
      this.note(call, target, { status: 'not-applicable' });
      return undefined;
    }
    this.note(call, target, { instruction: operator!.description });
    return changed;
  }

  replacesReply(call: ProxiedCall): boolean {
    return this.targetOf(call, 'response-corruption') !== undefined;
  }

  async replaceReply(
    call: ProxiedCall,
    upstream: { body: string; streamed: boolean; reply: ReplyView },
  ): Promise<InjectedReply | undefined> {
    const target = this.targetOf(call, 'response-corruption');
    if (!target) return undefined;
    const original = content(upstream.reply);
    const context = await this.contextOf(call, target);
    let injected: ReplyContent | undefined;
    if (target.operator === MANIPULATOR) {
      injected = await this.options.manipulator?.corrupt(context, original);
      if (!injected) {
        this.note(call, target, { status: 'manipulator-failed', original });
        return undefined;
      }
    } else {
      const operator = OPERATORS.get(target.operator);
      injected =
        operator?.strategy === 'response-corruption'
          ? operator.apply(original, context)
          : undefined;
      if (!injected) {
        this.note(call, target, { status: 'not-applicable', original });
        return undefined;
      }
    }
    this.note(call, target, { original, injected });
    const written = call.api.writeReply(injected, {
      stream: upstream.streamed,
      model: upstream.reply.model ?? call.request.model ?? 'faultline-injected',
      ...(call.request.includeUsage ? { includeUsage: true } : {}),
      ...(upstream.reply.inputTokens !== undefined
        ? { inputTokens: upstream.reply.inputTokens }
        : {}),
      ...(upstream.reply.outputTokens !== undefined
        ? { outputTokens: upstream.reply.outputTokens }
        : {}),
    });
    return {
      contentType: written.contentType,
      body: written.body,
      reply: { ...upstream.reply, text: injected.text, toolCalls: injected.toolCalls },
    };
  }

  /** The run with its injection label and record, when something was injected into it. */
  decorate(trace: Trace): Trace {
    const records = this.recordsOf(trace.id);
    if (records.length === 0) return trace;
    const calls = recordingOf(trace)?.calls ?? [];
    const targets = records.map((record) => {
      const step = calls.find(
        (call) => call.agent === record.agent && call.agentCall === record.agentCall,
      )?.step;
      return step === undefined ? record : { ...record, step };
    });
    const applied = targets
      .filter((record) => record.status === 'applied')
      .sort((left, right) => (left.step ?? Infinity) - (right.step ?? Infinity));
    const first = applied[0] ?? targets[0]!;
    const injection: InjectionMetadata = {
      version: 1,
      agent: first.agent,
      ...(first.step !== undefined ? { step: first.step } : {}),
      mode: first.mode,
      strategy: first.strategy,
      operator: first.operator,
      ...(first.original ? { original: first.original } : {}),
      targets,
    };
    const metadata = { ...trace.metadata, injection };
    if (applied.length === 0) return { ...trace, metadata };
    const agentOf = (record: InjectionRecord) =>
      (record.step !== undefined ? trace.steps[record.step]?.agent : undefined) ?? record.agent;
    const agents = [...new Set(applied.map(agentOf))];
    const labels: TraceLabels = {
      agent: agents[0]!,
      ...(agents.length > 1 ? { agents } : {}),
      ...(first.step !== undefined ? { step: first.step } : {}),
      reason: applied
        .map(
          (record) =>
            `injected ${record.operator} (${record.strategy}, FM-${record.mode}) into ${record.agent}'s call ${record.occurrence}`,
        )
        .join('; '),
      faults: applied.map((record) => ({ agent: agentOf(record), mode: record.mode })),
      modes: [...new Set(applied.map((record) => record.mode))].sort(),
    };
    return { ...trace, metadata, labels };
  }
}

/** The injection record of a run, when it has one. */
export function injectionOf(trace: Trace): InjectionMetadata | undefined {
  const value = asObject(trace.metadata.injection);
  return value && typeof value.mode === 'string' && typeof value.operator === 'string'
    ? (value as unknown as InjectionMetadata)
    : undefined;
}
