/**
 * Draws a spectrum analysis (src/attribution/spectrum/rank.ts) as text: the runs compared, the
 * most suspicious units with their counts, the agents, the failed run's suspicious steps, the
 * verdict, and why it may not hold.
 */
import { countsText, type SpectrumResult } from '../attribution/spectrum/rank.js';

const fixed = (value: number) => value.toFixed(3);

/** The text of a spectrum analysis; `top` units and steps are shown. */
export function renderSpectrum(result: SpectrumResult, task: string, top = 10): string {
  const { runs } = result;
  const lines = [
    `task ${task}: ${runs.failing} failing, ${runs.passing} passing${runs.unknown > 0 ? `, ${runs.unknown} without outcome` : ''} (${result.formula})`,
    'units (most suspicious first)',
    `  ${'score'.padStart(7)}  ${'failing'.padStart(7)}  ${'passing'.padStart(7)}  unit`,
    ...result.units
      .slice(0, top)
      .map(
        (unit) =>
          `  ${fixed(unit.score).padStart(7)}  ${`${unit.failingRuns}/${runs.failing}`.padStart(7)}  ${`${unit.passingRuns}/${runs.passing}`.padStart(7)}  ${unit.key}`,
      ),
    ...(result.departures.length > 0
      ? [
          'where failing runs first part from passing ones',
          ...result.departures
            .slice(0, 5)
            .map(
              (origin) =>
                `  step ${origin.step}  ${origin.unit}: first departure of ${origin.runs} of ${runs.failing} failing runs`,
            ),
        ]
      : []),
    `agents  ${result.agents.map((entry) => `${entry.agent} ${fixed(entry.score)}`).join(', ') || '(none)'}`,
    `failed run ${result.failed.source ?? result.failed.id}`,
    // Steps whose units do not set failing runs apart (score 0) are left out, unless all are.
    ...(result.failed.steps.some((step) => step.score > 0)
      ? result.failed.steps.filter((step) => step.score > 0)
      : result.failed.steps
    )
      .slice(0, Math.min(top, 5))
      .map(
        (step) =>
          `  step ${step.step}  ${step.agent}  ${fixed(step.score)}  ${step.unit}: ${countsText(step, runs)}`,
      ),
    result.verdict
      ? `verdict ${result.verdict.agent} at step ${result.verdict.step}${result.conclusive ? '' : ' (not conclusive)'}`
      : 'verdict none',
    ...result.notes.map((note) => `note    ${note}`),
  ];
  return lines.join('\n');
}
