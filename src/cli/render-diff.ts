/**
 * A trajectory diff for the terminal: the divergence with both steps quoted, then the aligned
 * runs side by side around it (a few pairs before and after; long alike stretches folded).
 */
import pc from 'picocolors';
import type { AlignedPair, PairStatus, TraceDiff } from '../attribution/diverge/types.js';
import type { Trace } from '../trace/model.js';
import { firstLine } from './render.js';
import { terminalSafe } from './terminal-text.js';

/** Aligned pairs shown before and after the divergence. */
const BEFORE = 3;
const AFTER = 4;
/** Width of the failed run's column. */
const COLUMN = 40;

const MARK: Record<PairStatus, string> = {
  same: '=',
  reworded: '~',
  changed: '≠',
  inserted: '+',
  missing: '-',
};

const pairs = (count: number) => `${count} pair${count === 1 ? '' : 's'}`;

/** A step as a cell: `#4 Calculator  Apples 1,200 plus…`, cut to `width`. */
function cell(trace: Trace, index: number | null, width: number): string {
  if (index === null) return '';
  const step = trace.steps[index]!;
  const head = `#${step.index} ${step.agent}`;
  const room = width - head.length - 2;
  return room > 8 ? `${head}  ${firstLine(step.content, room)}` : firstLine(head, width);
}

/** The counts, as the closing line says them. */
function countsLine(diff: TraceDiff): string {
  const { counts } = diff;
  return `${diff.failed.steps} steps against ${diff.passed.steps}: ${counts.same} alike, ${counts.reworded} reworded, ${counts.changed} changed, ${counts.inserted} inserted, ${counts.missing} missing${diff.banded ? ' (long runs: aligned within a band around the diagonal)' : ''}`;
}

/** One aligned pair as a row. */
function row(failed: Trace, passed: Trace, pair: AlignedPair, divergent: boolean): string {
  const left = cell(failed, pair.failed, COLUMN).padEnd(COLUMN);
  const right = cell(passed, pair.passed, COLUMN);
  const note =
    pair.status === 'changed'
      ? `  ${pair.aspects?.join(', ')}`
      : pair.status === 'inserted'
        ? '  only in the failed run'
        : pair.status === 'missing'
          ? '  only in the passing run'
          : '';
  const text = `${divergent ? '>' : ' '} ${left} ${MARK[pair.status]} ${right}${pc.dim(note)}`;
  return divergent ? pc.bold(text) : pair.status === 'same' ? pc.dim(text) : text;
}

/** The diff of `failed` against `passed`, for reading. */
export function renderDiff(...given: [TraceDiff, Trace, Trace]): string {
  // What the runs say is shown, never obeyed: their control characters are written escaped.
  const [diff, failed, passed] = terminalSafe(given);
  const title = `${diff.failed.name} against ${diff.passed.name}`;
  const divergence = diff.divergence;
  if (!divergence)
    return [
      `${pc.bold(title)}: ${pc.green('no divergence')}`,
      `  the failed run does not differ in substance from the passing one`,
      pc.dim(`  ${countsLine(diff)}`),
    ].join('\n');

  const lines = [
    `${pc.bold(title)}: diverges at step ${divergence.failedStep} (${pc.red(divergence.agent)})`,
    `  ${divergence.detail}`,
    `  failed  step ${divergence.failedStep}  ${JSON.stringify(divergence.failed)}`,
    divergence.passedStep === null
      ? `  passed  (no such step)`
      : `  passed  step ${divergence.passedStep}  ${JSON.stringify(divergence.passed)}`,
    '',
    pc.dim(`  ${'failed'.padEnd(COLUMN)}   passed`),
  ];
  const at = diff.divergencePair ?? 0;
  const from = Math.max(0, at - BEFORE);
  const to = Math.min(diff.pairs.length, at + AFTER + 1);
  if (from > 0) lines.push(pc.dim(`  … ${pairs(from)} before, none differing in substance`));
  for (let index = from; index < to; index += 1)
    lines.push(row(failed, passed, diff.pairs[index]!, index === at));
  const rest = diff.pairs.slice(to);
  if (rest.length > 0) {
    const differing = rest.filter(
      (pair) => pair.status !== 'same' && pair.status !== 'reworded',
    ).length;
    lines.push(
      pc.dim(`  … ${rest.length} more pair${rest.length === 1 ? '' : 's'}, ${differing} differing`),
    );
  }
  lines.push('', pc.dim(`  ${countsLine(diff)}`));
  return lines.join('\n');
}
