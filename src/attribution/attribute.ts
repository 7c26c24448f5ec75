/**
 * The library entry point: `attribute(trace, {method})` runs a registered method on a trace.
 */
import type { Trace } from '../trace/model.js';
import type { Attribution, AttributeOptions } from './method.js';
import { DEFAULT_METHOD, getMethod, type MethodOptions } from './registry.js';

/** Options of `attribute`. */
export interface AttributeCallOptions extends AttributeOptions, MethodOptions {
  /** Registry name of the method; `offline` by default. */
  method?: string;
}

/** Names the failure-responsible agent and decisive step of a trace. */
export async function attribute(
  trace: Trace,
  options: AttributeCallOptions = {},
): Promise<Attribution> {
  const method = getMethod(options.method ?? DEFAULT_METHOD, options);
  return method.attribute(trace, options);
}
