/** What the scripts share: the labelled runs of the folders named on their command line. */
import { isLabelled } from '../src/attribution/offline/features/inputs.js';
import { loadBatch } from '../src/trace/load.js';
import type { Trace } from '../src/trace/model.js';

/** The labelled runs under `folders`; with no folder, the usage line and exit status 2. */
export async function labelledRuns(script: string, folders: readonly string[]): Promise<Trace[]> {
  if (folders.length === 0) {
    console.error(`usage: node --import tsx scripts/${script} FOLDER...`);
    process.exit(2);
  }
  const traces: Trace[] = [];
  for await (const result of loadBatch(folders))
    if (result.ok) traces.push(...result.traces.filter(isLabelled));
  return traces;
}
