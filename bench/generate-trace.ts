/**
 * Writes a synthetic Who&When-shaped trace of N steps (about 1 KB per step) for the import
 * benchmark, streaming so the generator itself stays small.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** Writes `steps` steps to `file`; resolves with the file size in bytes. */
export async function generateTrace(file: string, steps: number): Promise<number> {
  const stream = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!stream.write(text)) await once(stream, 'drain');
  };
  await write(
    '{"is_correct": false, "question": "Synthetic benchmark task", "ground_truth": "42", "mistake_agent": "Agent_1", "mistake_step": "1", "history": [',
  );
  const filler =
    'The quick brown fox jumps over the lazy dog while the agents discuss step results. '.repeat(
      15,
    );
  for (let index = 0; index < steps; index += 1) {
    const speaker = index % 3 === 2 ? 'Computer_terminal' : `Agent_${index % 3}`;
    const content =
      index % 3 === 2
        ? `exitcode: ${index % 7 === 0 ? 1 : 0} (execution)\\nCode output: ${index}`
        : `Step ${index}: ${filler}`;
    await write(
      `${index === 0 ? '' : ','}\n{"role": "assistant", "name": "${speaker}", "content": "${content}"}`,
    );
  }
  await write('\n]}\n');
  stream.end();
  await once(stream, 'finish');
  return bytes;
}
