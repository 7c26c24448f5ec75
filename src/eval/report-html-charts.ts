/** The HTML report's charts, drawn as inline SVG: accuracy with intervals, reliability, step errors. */
import type { Calibration } from './calibration.js';
import type { Estimate } from './metrics.js';
import { methodLabel } from './method-label.js';
import { overText } from './report-calibration.js';
import { escapeHtml } from './report-html-elements.js';
import { formatEstimate } from './report-markdown.js';
import type { SummaryRow } from './summary.js';

export const COLOURS = [
  '#3366cc',
  '#dc3912',
  '#ff9900',
  '#109618',
  '#990099',
  '#0099c6',
  '#dd4477',
  '#66aa00',
];

/** Horizontal bars with 95% interval whiskers, one group per subset. */
export function accuracyChart(
  rows: readonly SummaryRow[],
  pick: (row: SummaryRow) => Estimate,
  title: string,
): string {
  const labels = [...new Set(rows.map((row) => methodLabel(row.method, row.useGroundTruth)))];
  const subsets = [...new Set(rows.map((row) => row.subset))];
  const barHeight = 14;
  const left = 230;
  const width = 420;
  const groupHeight = labels.length * (barHeight + 3) + 18;
  const height = subsets.length * groupHeight + 40;
  const parts = [
    `<svg role="img" aria-label="${escapeHtml(title)}" width="${left + width + 60}" height="${height}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="11">`,
  ];
  parts.push(`<text x="0" y="14" font-weight="bold">${escapeHtml(title)}</text>`);
  for (let tick = 0; tick <= 100; tick += 25)
    parts.push(
      `<line x1="${left + (tick / 100) * width}" x2="${left + (tick / 100) * width}" y1="22" y2="${height - 10}" stroke="#ddd"/><text x="${left + (tick / 100) * width - 8}" y="${height}" fill="#666">${tick}%</text>`,
    );
  subsets.forEach((subset, subsetIndex) => {
    const top = 30 + subsetIndex * groupHeight;
    parts.push(`<text x="0" y="${top + 10}" font-weight="bold">${escapeHtml(subset)}</text>`);
    labels.forEach((label, labelIndex) => {
      const row = rows.find(
        (candidate) =>
          candidate.subset === subset &&
          methodLabel(candidate.method, candidate.useGroundTruth) === label,
      );
      if (!row || pick(row).n === 0) return;
      const value = pick(row);
      const y = top + 14 + labelIndex * (barHeight + 3);
      const colour = COLOURS[labelIndex % COLOURS.length]!;
      parts.push(`<text x="10" y="${y + 11}">${escapeHtml(label)}</text>`);
      parts.push(
        `<rect x="${left}" y="${y}" width="${(value.value * width).toFixed(1)}" height="${barHeight}" fill="${colour}" opacity="0.8"><title>${escapeHtml(`${label}, ${subset}: ${formatEstimate(value)}`)}</title></rect>`,
      );
      parts.push(
        `<line x1="${left + value.low * width}" x2="${left + value.high * width}" y1="${y + barHeight / 2}" y2="${y + barHeight / 2}" stroke="#000"/>`,
      );
      parts.push(
        `<text x="${left + Math.max(value.value, value.high) * width + 4}" y="${y + 11}">${(value.value * 100).toFixed(1)}%</text>`,
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** A reliability chart: stated confidence against observed accuracy per bin, and the diagonal. */
export function reliabilityChart(title: string, calibration: Calibration): string {
  const size = 180;
  const pad = 30;
  const x = (value: number) => pad + value * size;
  const y = (value: number) => pad + (1 - value) * size;
  // Wide enough for the title (a method label and what is judged; about 6 px a bold character),
  // whose figures get a line of their own.
  const width = Math.max(size + 2 * pad, Math.ceil(title.length * 6) + 10);
  const parts = [
    `<svg role="img" aria-label="${escapeHtml(title)}" width="${width}" height="${size + 2 * pad + 10}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="10">`,
    `<text x="0" y="11" font-weight="bold">${escapeHtml(title)}</text>`,
    `<text x="0" y="23">${escapeHtml(`ECE ${calibration.ece.toFixed(3)}, over ${overText(calibration.overstatement)}, ${calibration.count} predictions`)}</text>`,
    `<rect x="${pad}" y="${pad}" width="${size}" height="${size}" fill="none" stroke="#ccc"/>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${pad}" y="${size + 2 * pad}" fill="#666">stated confidence →</text>`,
    `<text x="2" y="${pad + 8}" fill="#666">right</text>`,
  ];
  const most = Math.max(...calibration.bins.map((bin) => bin.count));
  for (const bin of calibration.bins)
    parts.push(
      `<circle cx="${x(bin.confidence).toFixed(1)}" cy="${y(bin.accuracy).toFixed(1)}" r="${(2 + 6 * Math.sqrt(bin.count / most)).toFixed(1)}" fill="#3366cc" opacity="0.7"><title>${escapeHtml(`${(bin.low * 100).toFixed(0)}–${(bin.high * 100).toFixed(0)}%: ${bin.count} predictions, stated ${(bin.confidence * 100).toFixed(0)}%, right ${(bin.accuracy * 100).toFixed(0)}%`)}</title></circle>`,
    );
  parts.push('</svg>');
  return parts.join('');
}

/** Histogram of predicted − true step for one method. */
export function errorHistogram(label: string, counts: Record<string, number>): string {
  const entries = Object.entries(counts).map(
    ([difference, count]) => [Number(difference), count] as const,
  );
  if (entries.length === 0) return '';
  const clamp = (value: number) => Math.max(-10, Math.min(10, value));
  const bins = new Map<number, number>();
  for (const [difference, count] of entries)
    bins.set(clamp(difference), (bins.get(clamp(difference)) ?? 0) + count);
  const max = Math.max(...bins.values());
  const barWidth = 18;
  const height = 120;
  const parts = [
    `<svg role="img" aria-label="${escapeHtml(`predicted minus true step, ${label}`)}" width="${21 * (barWidth + 2) + 20}" height="${height + 40}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="10">`,
  ];
  parts.push(`<text x="0" y="12" font-weight="bold">${escapeHtml(label)}</text>`);
  for (let difference = -10; difference <= 10; difference += 1) {
    const count = bins.get(difference) ?? 0;
    const x = 10 + (difference + 10) * (barWidth + 2);
    const barHeight = max > 0 ? (count / max) * (height - 30) : 0;
    parts.push(
      `<rect x="${x}" y="${height - barHeight}" width="${barWidth}" height="${barHeight}" fill="${difference === 0 ? '#109618' : '#3366cc'}"><title>${difference === -10 ? '≤ ' : difference === 10 ? '≥ ' : ''}${difference}: ${count}</title></rect>`,
    );
    if (difference % 5 === 0)
      parts.push(
        `<text x="${x + 2}" y="${height + 14}">${difference === -10 ? '≤-10' : difference === 10 ? '≥10' : difference}</text>`,
      );
  }
  parts.push('</svg>');
  return parts.join('');
}
