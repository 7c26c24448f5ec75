/**
 * Human-readable rendering of attributions for the terminal (a trace's step table is in
 * render-trace.ts).
 */
import pc from 'picocolors';
import type { Attribution, FoundMode } from '../attribution/method.js';
import { mastMode } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';

/** First non-empty line of a text, cut to `width` characters. */
export function firstLine(text: string, width: number): string {
  const line =
    text
      .split(/\r?\n/)
      .find((candidate) => candidate.trim().length > 0)
      ?.trim() ?? '';
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
}

/**
 * The speaker as shown beside its agent: `Orchestrator (thought)`, whether the log wrote the
 * suffix with its parentheses or without.
 */
export function speakerLabel(agent: string, speaker: string): string {
  if (speaker === agent) return agent;
  const rest = speaker.startsWith(agent) ? speaker.slice(agent.length).trim() : speaker;
  return /^\(.*\)$/.test(rest) ? `${agent} ${rest}` : `${agent} (${rest})`;
}

const percent = (value: number | undefined) =>
  value === undefined ? '' : pc.dim(` (${(value * 100).toFixed(0)}%)`);

/**
 * The failure modes found, most likely first (the one tied to the named step marked), with what
 * that one (else the first) means and how to fix it.
 */
function renderModes(modes: readonly FoundMode[], stepMode: string | undefined): string[] {
  if (modes.length === 0) return ['  modes   none named'];
  const lines = [
    `  modes   ${modes.map((mode) => `${mode.code} ${mode.name}${percent(mode.confidence)}${mode.code === stepMode ? ' [at the step]' : ''}`).join(', ')}`,
  ];
  const first = mastMode(stepMode ?? modes[0]!.code);
  if (first) lines.push(pc.dim(`          ${first.code}: ${first.definition} Fix: ${first.fix}`));
  return lines;
}

/** One attribution, for reading. */
export function renderAttribution(label: string, trace: Trace, result: Attribution): string {
  const lines = [pc.bold(label)];
  const guessed = result.agent === null && (result.candidates?.length ?? 0) > 0;
  if (result.agent === null || result.step === null) {
    lines.push(
      `  ${pc.yellow(result.unparsed ? 'no answer: the model reply could not be read' : guessed ? 'no confident attribution' : 'no answer')}`,
    );
    lines.push(`  reason  ${result.reason}`);
    if (result.raw !== undefined) lines.push(pc.dim(`  raw     ${firstLine(result.raw, 200)}`));
  } else {
    lines.push(`  agent   ${pc.red(result.agent)}${percent(result.agentConfidence)}`);
    const speaker = trace.steps[result.step]?.agent;
    lines.push(
      `  step    ${result.step}${speaker && speaker !== result.agent ? ` (${speaker})` : ''}${percent(result.confidence)}`,
    );
    lines.push(`  reason  ${result.reason}`);
  }
  for (const warning of result.warnings ?? []) lines.push(pc.yellow(`  warning ${warning}`));
  if (result.familiar === false)
    lines.push(
      pc.yellow(
        `  note    this run looks unlike the runs the offline model learned from (its agents' names or its structure): read the answer as a guess, try an LLM method (--method all-at-once --model provider:model), or retrain with labelled runs of this system (faultline train)`,
      ),
    );
  if (trace.outcome === 'success')
    lines.push(
      pc.yellow(
        `  note    the log records this run as a success: the answer is where it would most likely have gone wrong`,
      ),
    );
  if (result.candidates && result.candidates.length > (guessed ? 0 : 1)) {
    lines.push(
      `  ${guessed ? 'likely ' : 'next    '}${result.candidates
        .slice(guessed ? 0 : 1)
        .map((candidate) => `step ${candidate.step} ${candidate.agent}${percent(candidate.score)}`)
        .join(', ')}`,
    );
  }
  if (result.modes) lines.push(...renderModes(result.modes, result.stepMode));
  if (result.agentModes && result.agentModes.length > 0)
    lines.push(
      `          by agent: ${result.agentModes.map((entry) => `${entry.agent}: ${entry.modes.map((mode) => `${mode.code}${percent(mode.confidence)}`).join(', ')}`).join('; ')}`,
    );
  if (trace.labels?.step !== undefined || trace.labels?.agent) {
    lines.push(
      pc.dim(
        `  label   ${(trace.labels.agents ?? [trace.labels.agent ?? '?']).join(' or ')} at step ${trace.labels.step ?? '?'}`,
      ),
    );
  }
  const usage = result.usage;
  const spent =
    usage.calls > 0 || usage.inputTokens > 0
      ? `, ${usage.calls} calls, ${usage.inputTokens} in / ${usage.outputTokens} out tokens${usage.costUsd === undefined ? '' : `, ~$${usage.costUsd.toFixed(4)}`}`
      : '';
  lines.push(
    pc.dim(`  method  ${result.method}${result.model ? ` (${result.model})` : ''}${spent}`),
  );
  return lines.join('\n');
}
