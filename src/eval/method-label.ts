/** How a method is named in reports, tables and progress lines. */

/** A method's label in tables: `offline (with GT)`. */
export function methodLabel(method: string, useGroundTruth?: boolean): string {
  return useGroundTruth === undefined
    ? method
    : `${method} (${useGroundTruth ? 'with' : 'without'} GT)`;
}
