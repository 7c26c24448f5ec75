/**
 * Fitting Platt mappings (scores/calibration.ts) on held-out predictions, by the Newton fitter
 * (newton.ts) with a small pull towards the identity.
 */
import { IDENTITY, logit, type Platt } from '../scores/calibration.js';
import { maximiseByNewton } from './newton.js';

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
  const direction = (at: Float64Array) => {
    const [a, b] = [at[0]!, at[1]!];
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
    if (!(determinant > 1e-12)) return undefined;
    // The solved step is subtracted: the fitter adds the direction.
    return [-((hbb * ga - hab * gb) / determinant), -((haa * gb - hab * ga) / determinant)];
  };
  const fitted = maximiseByNewton(
    { value: (at) => objective(points, at[0]!, at[1]!, prior), direction },
    Float64Array.of(1, 0),
    { iterations: 50 },
  );
  let [a, b] = [fitted[0]!, fitted[1]!];
  if (a < 0) {
    a = 0;
    b = fitIntercept(points, prior);
  }
  const round = (value: number) => Number(value.toPrecision(6));
  return { a: round(a), b: round(b) };
}
