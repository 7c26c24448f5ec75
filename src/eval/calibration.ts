/**
 * How far stated confidences are from observed accuracy: the expected calibration error (ECE)
 * over equal-width bins, and the bins themselves for a reliability chart. A well-calibrated 70%
 * is right seven times in ten.
 */

/** One confidence next to whether the prediction was right. */
export interface Judged {
  confidence: number;
  correct: boolean;
}

/** One bin of a reliability chart. */
export interface ReliabilityBin {
  low: number;
  high: number;
  count: number;
  /** Mean stated confidence in the bin. */
  confidence: number;
  /** Share of the bin's predictions that were right. */
  accuracy: number;
}

/** Calibration of a set of predictions. */
export interface Calibration {
  /** Expected calibration error: the count-weighted mean gap between confidence and accuracy. */
  ece: number;
  /** Mean stated confidence and overall accuracy. */
  confidence: number;
  accuracy: number;
  /** How far the mean stated confidence is above the accuracy (negative: it understates). */
  overstatement: number;
  count: number;
  bins: ReliabilityBin[];
}

/** Calibration over `bins` equal-width bins of [0, 1]; undefined when nothing was judged. */
export function calibrationOf(judged: readonly Judged[], bins = 10): Calibration | undefined {
  if (judged.length === 0) return undefined;
  const sums = Array.from({ length: bins }, () => ({ count: 0, confidence: 0, right: 0 }));
  for (const item of judged) {
    const bin = sums[Math.min(bins - 1, Math.max(0, Math.floor(item.confidence * bins)))]!;
    bin.count += 1;
    bin.confidence += item.confidence;
    bin.right += item.correct ? 1 : 0;
  }
  let ece = 0;
  const out: ReliabilityBin[] = [];
  sums.forEach((bin, index) => {
    if (bin.count === 0) return;
    const confidence = bin.confidence / bin.count;
    const accuracy = bin.right / bin.count;
    ece += (bin.count / judged.length) * Math.abs(confidence - accuracy);
    out.push({
      low: index / bins,
      high: (index + 1) / bins,
      count: bin.count,
      confidence,
      accuracy,
    });
  });
  const mean = (pick: (item: Judged) => number) =>
    judged.reduce((sum, item) => sum + pick(item), 0) / judged.length;
  const confidence = mean((item) => item.confidence);
  const accuracy = mean((item) => (item.correct ? 1 : 0));
  return {
    ece,
    confidence,
    accuracy,
    overstatement: confidence - accuracy,
    count: judged.length,
    bins: out,
  };
}
