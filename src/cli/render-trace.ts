/**
 * A trace for reading in the terminal (`faultline inspect`): its steps as a table, then its agents
 * and labels. Apart from render.ts so that `faultline attribute` does not load the table library.
 */
import Table from 'cli-table3';
import pc from 'picocolors';
import { mastLabel } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import { firstLine, speakerLabel } from './render.js';
import { terminalSafe } from './terminal-text.js';

/**
 * Most steps in one table. cli-table3 lays a table out in time quadratic in its rows (a
 * 100,000-step trace took over six minutes as one table), so a longer trace is shown as several
 * tables of this many steps, each with its header.
 */
const STEPS_PER_TABLE = 500;

/** The steps as a table (or tables, STEPS_PER_TABLE steps each), then agents and labels. */
export function renderTrace(given: Trace, width = process.stdout.columns ?? 100): string {
  // What the trace says is shown, never obeyed: its control characters are written escaped.
  const trace = terminalSafe(given);
  const contentWidth = Math.max(30, width - 50);
  const tables: string[] = [];
  for (let from = 0; from < trace.steps.length; from += STEPS_PER_TABLE) {
    // cli-table3 colours headers even when piped; keep it plain.
    const table = new Table({
      head: ['#', 'agent', 'role', 'content'],
      style: { head: [], border: [] },
      wordWrap: false,
    });
    for (const step of trace.steps.slice(from, from + STEPS_PER_TABLE)) {
      const marker = trace.labels?.step === step.index ? '*' : '';
      table.push([
        `${step.index}${marker}`,
        speakerLabel(step.agent, step.speaker),
        step.role,
        firstLine(step.content, contentWidth),
      ]);
    }
    tables.push(table.toString());
  }
  const lines = [
    `${pc.bold('trace')} ${trace.id}  ${pc.dim(`format ${trace.format}, ${trace.steps.length} steps, outcome ${trace.outcome}`)}`,
  ];
  if (trace.question) lines.push(`${pc.bold('task')}  ${firstLine(trace.question, width - 6)}`);
  if (trace.groundTruth)
    lines.push(`${pc.bold('expected answer')}  ${firstLine(trace.groundTruth, width - 18)}`);
  lines.push(...tables);
  lines.push(pc.bold('agents'));
  for (const agent of trace.agents)
    lines.push(
      `  ${agent.name}  ${pc.dim(`${agent.role}, ${agent.steps} step${agent.steps === 1 ? '' : 's'}`)}`,
    );
  if (trace.labels) {
    lines.push(pc.bold('labels'));
    const responsible = trace.labels.agents ?? (trace.labels.agent ? [trace.labels.agent] : []);
    if (responsible.length > 0)
      lines.push(
        `  responsible agent${responsible.length > 1 ? 's' : ' '} ${responsible.join(', ')}`,
      );
    if (trace.labels.faults)
      lines.push(
        `  failure modes      ${trace.labels.faults.map((fault) => `${fault.agent}: ${mastLabel(fault.mode)}`).join('; ')}`,
      );
    if (trace.labels.modes)
      lines.push(
        `  failure modes      ${trace.labels.modes.length > 0 ? trace.labels.modes.map(mastLabel).join('; ') : 'none'}`,
      );
    if (trace.labels.step !== undefined)
      lines.push(`  decisive step      ${trace.labels.step} (marked *)`);
    if (trace.labels.reason) lines.push(`  reason             ${trace.labels.reason}`);
  }
  return lines.join('\n');
}
