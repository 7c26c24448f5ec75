/** The trace on screen, what the reader is doing with it, and what its timeline marks. */
import type { Analysis, LabelMatch, Trace } from './api.js';
import { callText, type ConversationView } from './conversation.js';
import { rangesOf, setHighlight } from './highlights.js';
import { SUSPICIOUS_TEXT } from './suspicious-steps.js';
import type { TimelineMark, TimelineView } from './timeline.js';

/** The trace on screen and what the reader is doing with it. */
export interface OpenTrace {
  id: string;
  trace: Trace;
  view: ConversationView;
  timeline: TimelineView;
  analysis: Analysis | null;
  /** How the analysis compares with the trace's label. */
  match: LabelMatch | null;
  /** Every analysis of this trace, newest first (compare). */
  siblings: Analysis[];
  cursor: number | null;
  /** Steps a task's spectrum found suspicious (from the URL), most suspicious first. */
  suspicious: number[];
  /** Steps matching the search, and which of them the reader is at. */
  matches: number[];
  searchAt: number;
}

/**
 * The timeline's marks: other analyses' verdicts, the task's suspicious steps, candidates, the
 * label and the verdict.
 */
export function timelineMarks(open: OpenTrace): TimelineMark[] {
  const marks: TimelineMark[] = open.suspicious.map((step) => ({
    step,
    kind: 'suspicious',
    title: `${SUSPICIOUS_TEXT}: step ${step}`,
    text: 'S',
  }));
  for (const other of open.siblings)
    if (other.id !== open.analysis?.id && other.result.step !== null)
      marks.push({
        step: other.result.step,
        kind: 'other',
        title: `${other.method}: ${other.result.agent} at step ${other.result.step}`,
        text: other.method.slice(0, 1).toUpperCase(),
      });
  const result = open.analysis?.result;
  for (const candidate of result?.candidates ?? [])
    if (candidate.step !== result?.step)
      marks.push({
        step: candidate.step,
        kind: 'candidate',
        title: `candidate: step ${candidate.step}, ${candidate.agent}`,
      });
  const label = open.trace.labels?.step;
  if (label !== undefined)
    marks.push({ step: label, kind: 'label', title: `label: step ${label}`, text: 'L' });
  if (result?.step !== null && result?.step !== undefined)
    marks.push({
      step: result.step,
      kind: 'verdict',
      title: `verdict: step ${result.step}, ${result.agent}`,
      text: 'V',
    });
  return marks;
}

/** The steps of the open trace, shown by the agent filter, whose text holds `needle`. */
function matchingSteps(open: OpenTrace, needle: string): number[] {
  return open.trace.steps
    .filter((step) => !open.view.nodes.get(step.index)?.hidden)
    .filter((step) =>
      [step.agent, step.content, ...(step.toolCalls ?? []).map(callText)]
        .join('\n')
        .toLowerCase()
        .includes(needle),
    )
    .map((step) => step.index);
}

/**
 * Searches the open trace's shown steps for `needle` (lower case), highlights it and sets the
 * matches; returns what the count says ('' for no search).
 */
export function search(open: OpenTrace, needle: string): string {
  open.matches = needle ? matchingSteps(open, needle) : [];
  open.searchAt = -1;
  const ranges: Range[] = [];
  for (const step of open.matches.slice(0, 300))
    ranges.push(...rangesOf(open.view.nodes.get(step)!, needle, 20));
  setHighlight('search', ranges);
  return needle ? `${open.matches.length} step${open.matches.length === 1 ? '' : 's'}` : '';
}
