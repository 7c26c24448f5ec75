/**
 * The one Newton fitter behind every learned part: the conditional logits of the step and agent
 * scorers (conditional-logit.ts), the failure-mode logistic regressions (fit-logistic.ts) and the
 * Platt mappings of the calibration (platt.ts). Each client states its objective and how to take
 * a Newton direction; this loop takes the steps, halving each until the objective does not fall,
 * and stops when it no longer rises. The objectives are concave, so the fits are deterministic.
 */

/** An objective to maximise and its Newton direction. */
export interface NewtonProblem {
  /** The objective at `parameters`. */
  value(parameters: Float64Array): number;
  /**
   * The full Newton step from `parameters` (added to them), or undefined where none can be taken
   * (a singular curvature): the fit stops there.
   */
  direction(parameters: Float64Array): ArrayLike<number> | undefined;
}

/** Limits of the loop. */
export interface NewtonLimits {
  /** Most Newton steps. */
  iterations: number;
  /** Fewest halvings of a step before giving up on it (default 30). */
  halvings?: number;
  /** The fit stops once a step raises the objective by less than this (default 1e-10). */
  tolerance?: number;
}

/**
 * Maximises `problem` from `start` by Newton's method with step halving: every step taken raises
 * the objective or leaves it level. Returns the last parameters reached.
 */
export function maximiseByNewton(
  problem: NewtonProblem,
  start: Float64Array,
  limits: NewtonLimits,
): Float64Array {
  const halvings = limits.halvings ?? 30;
  const tolerance = limits.tolerance ?? 1e-10;
  let parameters = start;
  let current = problem.value(parameters);
  for (let iteration = 0; iteration < limits.iterations; iteration += 1) {
    const direction = problem.direction(parameters);
    if (!direction) break;
    let stepSize = 1;
    let next = parameters;
    let nextValue = -Infinity;
    for (let attempt = 0; attempt < halvings; attempt += 1) {
      next = parameters.map((value, index) => value + stepSize * direction[index]!);
      nextValue = problem.value(next);
      if (nextValue >= current) break;
      stepSize /= 2;
    }
    if (!(nextValue >= current)) break;
    const gain = nextValue - current;
    parameters = next;
    current = nextValue;
    if (gain < tolerance) break;
  }
  return parameters;
}
