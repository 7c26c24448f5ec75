/** The verdict panel's footer: what the analysis cost, and its export as JSON or Markdown. */
import type { Analysis, Attribution, Trace } from './api.js';
import { candidateFigure, element, labelledAgents, percent } from './dom.js';
import { isLowConfidence, RECORDED_SUCCESS } from './verdict-links.js';

/** The verdict and label as Markdown, for pasting into an issue. */
export function verdictMarkdown(traceName: string, trace: Trace, analysis: Analysis): string {
  const result = analysis.result;
  const lines = [
    `# faultline: ${traceName}`,
    '',
    `- **Method:** ${result.method}${result.model ? ` (${result.model})` : ''}`,
    `- **Agent:** ${result.agent ?? 'none'}${result.agentConfidence !== undefined ? ` (${percent(result.agentConfidence)})` : ''}`,
    `- **Step:** ${result.step ?? 'none'}${result.confidence !== undefined ? ` (${percent(result.confidence)})` : ''}`,
    `- **Reason:** ${result.reason}`,
  ];
  if (result.verified)
    lines.push(
      `- **Verified by replay:** with step ${result.verified.step} fixed, the run passed its check (${result.verified.replays} replays)`,
    );
  if (isLowConfidence(result)) lines.push('- **Low confidence:** read this as a guess.');
  if (trace.outcome === 'success') lines.push(`- **Outcome:** ${RECORDED_SUCCESS}`);
  if (result.modes?.length)
    lines.push(
      `- **Failure modes:** ${result.modes.map((mode) => `${mode.code} ${mode.name}`).join('; ')}`,
    );
  if (result.candidates?.length)
    lines.push(
      `- **Candidates:** ${result.candidates.map((c) => `step ${c.step} ${c.agent} (${candidateFigure(c.score, result)})`).join(', ')}`,
    );
  if (trace.labels?.agent || trace.labels?.step !== undefined)
    lines.push(
      `- **Label${trace.labels.byUser ? ' (set on the page)' : ''}:** ${labelledAgents(trace.labels)} at step ${trace.labels.step ?? '?'}`,
    );
  return `${lines.join('\n')}\n`;
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = element('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The method, model, calls, cost and time of the analysis, then the two export buttons. */
export function appendUsageAndExport(
  container: HTMLElement,
  trace: Trace,
  traceName: string,
  analysis: Analysis,
  result: Attribution,
): void {
  const usage = result.usage;
  container.append(
    element(
      'p',
      { class: 'meta' },
      `${result.method}${result.model ? ` · ${result.model}` : ''} · ${usage.calls} calls${usage.costUsd ? ` · ~$${usage.costUsd.toFixed(4)}` : ''} · ${analysis.milliseconds.toFixed(0)} ms`,
    ),
  );
  const json = element('button', { type: 'button' }, 'Export JSON');
  json.addEventListener('click', () =>
    download(
      `faultline-${analysis.id}.json`,
      'application/json',
      `${JSON.stringify({ trace: traceName, ...result }, null, 2)}\n`,
    ),
  );
  const markdown = element('button', { type: 'button' }, 'Export Markdown');
  markdown.addEventListener('click', () =>
    download(
      `faultline-${analysis.id}.md`,
      'text/markdown',
      verdictMarkdown(traceName, trace, analysis),
    ),
  );
  container.append(element('p', { class: 'exports' }, json, ' ', markdown));
}
