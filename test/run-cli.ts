/** The command line run as a user runs it (a child process from source), for the CLI tests. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './paths.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'src/cli/index.ts');

/** What a command did. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `faultline ARGS` without colours; `env` adds to (or, with undefined, removes from) the
 * environment, and `input`, when given, is piped to its standard input.
 */
export async function runFaultline(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  input?: string | Uint8Array,
): Promise<CliResult> {
  const running = run(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  if (input !== undefined) running.child.stdin?.end(input);
  try {
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as CliResult;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
