/**
 * Content hash of a trace: what was said, by whom, in order. Two files with the same run hash the
 * same whatever their name or format details, so training sets can be recognised by content.
 */
import { createHash } from 'node:crypto';
import type { Trace } from './model.js';

/** SHA-256 (hex, first 16 bytes) of the steps' speakers and contents. */
export function traceHash(trace: Trace): string {
  const hash = createHash('sha256');
  for (const step of trace.steps) {
    hash.update(step.speaker);
    hash.update('\u0000');
    hash.update(step.content);
    hash.update('\u0001');
  }
  return hash.digest('hex').slice(0, 32);
}
