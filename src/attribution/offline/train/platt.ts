/**
 * Platt mappings, σ(a · logit(p) + b): how raw scores become stated probabilities (calibrate.ts
 * fits them on held-out predictions; the attributor applies them).
 */

/** A Platt mapping of a raw probability. */
export interface Platt {
  a: number;
  b: number;
}

/** The mappings of agent and step confidence, for familiar and for unfamiliar runs. */
export interface ConfidenceCalibration {
  familiar: { agent: Platt; step: Platt };
  unfamiliar: {
    agent: Platt;
    step: Platt;
    /**
     * How often the named step, the first other candidate and the second were the labelled step of
     * held-out runs (stated in that order in an unfamiliar run, in place of the step mapping).
     * Absent in older model files and where fewer than ten held-out runs had a step label.
     */
    stepByRank?: number[];
  };
}

/** The identity mapping (raw scores as they are). */
export const IDENTITY: Platt = { a: 1, b: 0 };

const EPSILON = 1e-6;
const logit = (p: number) => {
  const clipped = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(clipped / (1 - clipped));
};

/** A raw probability through a Platt mapping. */
export function applyPlatt(probability: number, platt: Platt): number {
  return 1 / (1 + Math.exp(-(platt.a * logit(probability) + platt.b)));
}

/** Log-likelihood of the judged predictions under a mapping, with the pull towards identity. */
function objective(
  judged: readonly { x: number; correct: boolean }[],
  a: number,
  b: number,
  prior: number,
): number {
  let value = -(prior / 2) * ((a - 1) ** 2 + b ** 2);
  for (const item of judged) {
    const z = a * item.x + b;
    // log σ(z) and log(1 − σ(z)), computed stably.
    value += item.correct ? -Math.log1p(Math.exp(-z)) : -Math.log1p(Math.exp(z));
  }
  return value;
}

/** The intercept that maximises the objective with the slope held at 0 (Newton's method). */
function fitIntercept(points: readonly { x: number; correct: boolean }[], prior: number): number {
  let b = 0;
  for (let iteration = 0; iteration < 50; iteration += 1) {
    let gradient = -prior * b;
    let curvature = -prior;
    for (const { correct } of points) {
      const p = 1 / (1 + Math.exp(-b));
      gradient += (correct ? 1 : 0) - p;
      curvature -= p * (1 - p);
    }
    const step = gradient / curvature;
    b -= step;
    if (Math.abs(step) < 1e-10) break;
  }
  return b;
}

/**
 * Fits a Platt mapping by Newton's method (with step halving) on the log-likelihood, with a small
 * pull towards the identity so a few held-out predictions cannot bend it far. Identity with fewer
 * than ten. The slope is never negative: where higher raw scores are not more often right, every
 * score is stated at the same rate, so a mapping never reverses the order of the candidates.
 */
export function fitPlatt(judged: readonly { confidence: number; correct: boolean }[]): Platt {
  if (judged.length < 10) return { ...IDENTITY };
  const prior = 1;
  const points = judged.map((item) => ({ x: logit(item.confidence), correct: item.correct }));
  let a = 1;
  let b = 0;
  let current = objective(points, a, b, prior);
  for (let iteration = 0; iteration < 50; iteration += 1) {
    let ga = -prior * (a - 1);
    let gb = -prior * b;
    let haa = -prior;
    let hab = 0;
    let hbb = -prior;
    for (const { x, correct } of points) {
      const p = 1 / (1 + Math.exp(-(a * x + b)));
      const residual = (correct ? 1 : 0) - p;
      const weight = p * (1 - p);
      ga += residual * x;
      gb += residual;
      haa -= weight * x * x;
      hab -= weight * x;
      hbb -= weight;
    }
    const determinant = haa * hbb - hab * hab;
    if (!(determinant > 1e-12)) break;
    const stepA = (hbb * ga - hab * gb) / determinant;
    const stepB = (haa * gb - hab * ga) / determinant;
    let size = 1;
    let next = current;
    for (let attempt = 0; attempt < 30; attempt += 1) {
      next = objective(points, a - size * stepA, b - size * stepB, prior);
      if (next >= current) break;
      size /= 2;
    }
    if (!(next >= current)) break;
    a -= size * stepA;
    b -= size * stepB;
    const gain = next - current;
    current = next;
    if (gain < 1e-10) break;
  }
  if (a < 0) {
    a = 0;
    b = fitIntercept(points, prior);
  }
  const round = (value: number) => Number(value.toPrecision(6));
  return { a: round(a), b: round(b) };
}
