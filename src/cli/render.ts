/**
 * Human-readable rendering of attributions for the terminal (a trace's step table is in
 * render-trace.ts).
 */
import pc from 'picocolors';
import type { Attribution, FoundMode } from '../attribution/method.js';
import { mastMode } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import { escapeControls, terminalSafe } from './terminal-text.js';

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

/** A probability in whole percent; one above 0 that rounds to 0 is `<1%`, not `0%`. */
const wholePercent = (value: number) =>
  `${value > 0 && value < 0.005 ? '<1' : (value * 100).toFixed(0)}%`;

const percent = (value: number | undefined) =>
  value === undefined ? '' : pc.dim(` (${wholePercent(value)})`);

/** A method's score in three decimals, as the spectrum states it; above 0, never `0.000`. */
const scoreText = (score: number) => (score > 0 && score < 0.0005 ? '<0.001' : score.toFixed(3));

/** A candidate step's figure: its probability, or the method's own score (`candidateScale`). */
const candidateFigure = (result: Attribution, score: number) =>
  result.candidateScale === 'score' ? pc.dim(` (score ${scoreText(score)})`) : percent(score);

/** A mode's confidence, with how many times its usual rate it is where the method says. */
const modePercent = (mode: FoundMode) =>
  mode.lift === undefined || mode.confidence === undefined
    ? percent(mode.confidence)
    : pc.dim(` (${wholePercent(mode.confidence)}, ${mode.lift.toFixed(1)}× usual)`);

/** Most modes listed by default, per run and per agent. */
export const LISTED_MODES = 3;

/**
 * The modes listed: with `all`, every one found; else those the method marks shown (the offline
 * model: its held-out decision beats the constant answer, at most three, highest lift first), or,
 * where it marks none, its first three.
 */
export function listedModes(modes: readonly FoundMode[], all = false): FoundMode[] {
  if (all) return [...modes];
  const marked = modes.some((mode) => mode.shown !== undefined);
  return (marked ? modes.filter((mode) => mode.shown) : modes).slice(0, LISTED_MODES);
}

/**
 * The failure modes listed (the one tied to the named step marked), with what that one (else the
 * first) means and how to fix it; with `hidden`, how many found modes are not listed.
 */
function renderModes(
  found: readonly FoundMode[],
  stepMode: string | undefined,
  all: boolean,
): string[] {
  const modes = listedModes(found, all);
  const hidden = found.length - modes.length;
  const more = hidden > 0 ? pc.dim(` (${hidden} more with --all-modes)`) : '';
  if (modes.length === 0)
    return [`  modes   ${found.length === 0 ? 'none named' : 'none above what is usual'}${more}`];
  const atStep = modes.some((mode) => mode.code === stepMode) ? stepMode : undefined;
  const lines = [
    `  modes   ${modes.map((mode) => `${mode.code} ${mode.name}${modePercent(mode)}${mode.code === atStep ? ' [at the step]' : ''}`).join(', ')}${more}`,
  ];
  const first = mastMode(atStep ?? modes[0]!.code);
  if (first) lines.push(pc.dim(`          ${first.code}: ${first.definition} Fix: ${first.fix}`));
  return lines;
}

/**
 * What the trace's own labels say: `Coder at step 4`, the agents alone where no step is labelled
 * (`Critic or Judge`, as AEGIS runs are), the step alone where no agent is; undefined without
 * labels of either.
 */
function labelText(trace: Trace): string | undefined {
  const labels = trace.labels;
  const agents = (labels?.agents ?? (labels?.agent ? [labels.agent] : [])).join(' or ');
  const step = labels?.step === undefined ? '' : `step ${labels.step}`;
  if (agents && step) return `${agents} at ${step}`;
  return agents || step || undefined;
}

/**
 * The agent confidence: for a run unlike the training runs, stated as measured on systems left out
 * of training in turn, with the lowest and highest of their hit rates where known
 * (`73%; unseen systems 56–97% right`).
 */
function agentPercent(result: Attribution): string {
  const value = result.agentConfidence;
  if (result.confidenceBasis !== 'unseen-systems' || value === undefined) return percent(value);
  const range = result.heldOutRange;
  const spread = range
    ? `unseen systems ${(range[0] * 100).toFixed(0)}–${wholePercent(range[1])} right`
    : 'as right on unseen systems';
  return pc.dim(` (${wholePercent(value)}; ${spread})`);
}

/** What an unfamiliar run's verdict leads with: what it is, and what to do about it. */
export const GUESS_TEXT =
  'a guess on a system it was not trained on: `faultline verify` proves it by replay; 20 labelled runs (`faultline adapt` or `train --base`) make it yours';

const range = (span: [number, number] | undefined) =>
  span ? `; unseen systems ${(span[0] * 100).toFixed(0)}–${wholePercent(span[1])} right` : '';

/**
 * An unfamiliar run's verdict: what to do first, then the three most likely agents with their
 * figures (none bold: it is a guess), the named step and the reason.
 */
function renderGuess(trace: Trace, result: Attribution): string[] {
  const agents = result.agentCandidates ?? [
    { agent: result.agent!, confidence: result.agentConfidence ?? 0 },
  ];
  const speaker = trace.steps[result.step!]?.agent;
  const stepPercent =
    result.confidence === undefined
      ? ''
      : pc.dim(` (${wholePercent(result.confidence)}${range(result.heldOutStepRange)})`);
  return [
    pc.yellow(`  guess   ${GUESS_TEXT}`),
    `  agents  ${agents.map((entry) => `${entry.agent} ${wholePercent(entry.confidence)}`).join(', ')}${pc.dim(range(result.heldOutRange).replace(/^; /, ' (') + (result.heldOutRange ? ')' : ''))}`,
    `  step    ${result.step}${speaker && speaker !== agents[0]!.agent ? ` (${speaker})` : ''}${stepPercent}`,
    `  reason  ${result.reason}`,
  ];
}

/** How an attribution is rendered. */
export interface RenderOptions {
  /** List every mode found, not only the shown ones (`--all-modes`). */
  allModes?: boolean;
}

/** One attribution, for reading. */
export function renderAttribution(
  label: string,
  trace: Trace,
  result: Attribution,
  options: RenderOptions = {},
): string {
  // What a trace says is shown, never obeyed: its control characters are written escaped.
  [label, trace, result] = [escapeControls(label), terminalSafe(trace), terminalSafe(result)];
  const lines = [pc.bold(label)];
  const guessed = result.agent === null && (result.candidates?.length ?? 0) > 0;
  if (result.agent === null || result.step === null) {
    lines.push(
      `  ${pc.yellow(result.unparsed ? 'no answer: the model reply could not be read' : guessed ? 'no confident attribution' : 'no answer')}`,
    );
    lines.push(`  reason  ${result.reason}`);
    if (result.raw !== undefined) lines.push(pc.dim(`  raw     ${firstLine(result.raw, 200)}`));
  } else if (result.familiar === false) {
    lines.push(...renderGuess(trace, result));
  } else {
    lines.push(`  agent   ${pc.red(result.agent)}${agentPercent(result)}`);
    const speaker = trace.steps[result.step]?.agent;
    lines.push(
      `  step    ${result.step}${speaker && speaker !== result.agent ? ` (${speaker})` : ''}${percent(result.confidence)}`,
    );
    lines.push(`  reason  ${result.reason}`);
  }
  for (const warning of result.warnings ?? []) lines.push(pc.yellow(`  warning ${warning}`));
  if (result.familiar === false && (result.agent === null || result.step === null))
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
  // The steps besides the one named (the offline method lists it first, spectrum and combined not).
  const others = (result.candidates ?? []).filter((candidate) => candidate.step !== result.step);
  if (others.length > 0)
    lines.push(
      `  ${guessed ? 'likely ' : 'next    '}${others
        .map(
          (candidate) =>
            `step ${candidate.step} ${candidate.agent}${candidateFigure(result, candidate.score)}`,
        )
        .join(', ')}`,
    );
  const all = options.allModes === true;
  if (result.modes) lines.push(...renderModes(result.modes, result.stepMode, all));
  const byAgent = (result.agentModes ?? [])
    .map((entry) => ({ agent: entry.agent, modes: listedModes(entry.modes, all) }))
    .filter((entry) => entry.modes.length > 0);
  if (byAgent.length > 0)
    lines.push(
      `          by agent: ${byAgent.map((entry) => `${entry.agent}: ${entry.modes.map((mode) => `${mode.code}${modePercent(mode)}`).join(', ')}`).join('; ')}`,
    );
  const { lenient } = result;
  if (lenient && (lenient.agent !== result.agent || lenient.step !== result.step))
    lines.push(
      pc.dim(
        `  lenient ${lenient.agent === null || lenient.step === null ? 'no answer' : `${lenient.agent} at step ${lenient.step}`} (faultline's tolerant reading of the same replies)`,
      ),
    );
  const labelled = labelText(trace);
  if (labelled) lines.push(pc.dim(`  label   ${labelled}`));
  const usage = result.usage;
  const spent =
    usage.calls > 0 || usage.inputTokens > 0
      ? `, ${usage.calls} calls, ${usage.inputTokens} in / ${usage.outputTokens} out tokens${usage.costUsd === undefined ? '' : `, ~$${usage.costUsd.toFixed(4)}`}`
      : '';
  lines.push(
    pc.dim(
      `  method  ${result.method}${result.prompts === 'paper' ? ', paper prompts' : ''}${result.model ? ` (${result.model})` : ''}${spent}`,
    ),
  );
  return lines.join('\n');
}

/**
 * The close of a text run over several traces: how many runs, which agents were named how often
 * (the agent to look at first across a team's failed runs), how many answers are guesses, and
 * what the LLM calls spent. Undefined for fewer than two runs.
 */
export function renderBatchSummary(given: readonly Attribution[]): string | undefined {
  if (given.length < 2) return undefined;
  const results = terminalSafe(given);
  const named = new Map<string, number>();
  let unanswered = 0;
  for (const result of results) {
    if (result.agent === null) unanswered += 1;
    else named.set(result.agent, (named.get(result.agent) ?? 0) + 1);
  }
  const tally = [...named]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .map(([agent, count]) => `${agent} ${count}`);
  if (unanswered > 0) tally.push(`no answer ${unanswered}`);
  const lines = [pc.bold(`${results.length} runs`), `  named   ${tally.join(', ')}`];
  const unfamiliar = results.filter((result) => result.familiar === false).length;
  if (unfamiliar > 0)
    lines.push(
      pc.yellow(
        `  note    ${unfamiliar} of them ${unfamiliar === 1 ? 'looks' : 'look'} unlike the runs the offline model learned from: read those answers as guesses`,
      ),
    );
  const calls = results.reduce((sum, result) => sum + result.usage.calls, 0);
  if (calls > 0) {
    const total = (key: 'inputTokens' | 'outputTokens') =>
      results.reduce((sum, result) => sum + result.usage[key], 0);
    const costs = results.map((result) => result.usage.costUsd);
    const cost = costs.every((value) => value !== undefined)
      ? `, ~$${costs.reduce((sum, value) => sum + value, 0).toFixed(4)}`
      : '';
    lines.push(
      pc.dim(
        `  spent   ${calls} calls, ${total('inputTokens')} in / ${total('outputTokens')} out tokens${cost}`,
      ),
    );
  }
  return lines.join('\n');
}
