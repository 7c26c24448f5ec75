/**
 * A MAST mode as results name it: code, name, definition and fix from the taxonomy (trace/mast.ts),
 * with the method's confidence when it has one. Shared by the offline classifier and LLM replies.
 */
import { mastMode } from '../trace/mast.js';
import type { FoundMode } from './method.js';

/** The result entry of a mode code; undefined when the code is not a MAST mode. */
export function foundMode(code: string, confidence?: number): FoundMode | undefined {
  const mode = mastMode(code);
  if (!mode) return undefined;
  return {
    code: mode.code,
    name: mode.name,
    definition: mode.definition,
    fix: mode.fix,
    ...(confidence === undefined ? {} : { confidence }),
  };
}

/** The result entries of mode codes, in order, unknown codes dropped. */
export function foundModes(codes: readonly string[]): FoundMode[] {
  return codes.flatMap((code) => foundMode(code) ?? []);
}
