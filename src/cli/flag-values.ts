/**
 * Numeric flag values, checked before any work starts: each bad value is a UserError that names
 * the flag, the value and what is allowed.
 */
import { UserError } from '../errors.js';

/** A whole-number flag value at least `minimum`. */
export function wholeNumber(value: string, flag: string, minimum: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum)
    throw new UserError(`${flag} must be a whole number ≥ ${minimum}, got "${value}"`);
  return number;
}

/** A non-negative number. */
export function nonNegativeNumber(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0)
    throw new UserError(`${flag} must be a non-negative number, got "${value}"`);
  return number;
}

/** A share: a number from 0 to 1 (with `aboveZero`, 0 itself excluded). */
export function share(value: string, flag: string, options: { aboveZero?: boolean } = {}): number {
  const number = Number(value);
  const low = options.aboveZero ? number <= 0 : number < 0;
  if (!Number.isFinite(number) || low || number > 1)
    throw new UserError(
      `${flag} must be ${options.aboveZero ? 'above 0' : 'at least 0'} and at most 1, got "${value}"`,
    );
  return number;
}
