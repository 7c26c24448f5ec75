/**
 * Running a user's shell command (a system's run or check command) for replay and fault injection:
 * in a process group of its own, so that a timeout ends the command and everything it started,
 * and so that what it leaves behind when it exits (a server it started) is stopped with it rather
 * than holding its output open, and the replay, until the timeout.
 */
import { spawn } from 'node:child_process';
import { UserError } from '../../errors.js';

/** How long what a command leaves behind has between SIGTERM and SIGKILL. */
const GRACE_MS = 2_000;

/** How a command runs. */
export interface ShellOptions {
  environment: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** What the command is, for messages: `run` gives "the run command could not start". */
  what?: string;
  /**
   * `stderr`: its output goes to standard error (when standard output is the caller's own);
   * `kept`: its output is read and the last 2000 characters kept.
   */
  output: 'stderr' | 'kept';
  /** Called when it runs past `timeoutMs`, before it is stopped. */
  onTimeout?: () => void;
  /** Stops the command and everything it started when aborted (Ctrl-C in `faultline rerun`). */
  signal?: AbortSignal;
}

/** Runs a shell command; resolves with its exit code (null: stopped) and its kept output. */
export function runShell(
  command: string,
  options: ShellOptions,
): Promise<{ code: number | null; output: string }> {
  const name = options.what ? `the ${options.what} command` : 'the command';
  return new Promise((resolve, reject) => {
    const child = spawn(command, {
      shell: true,
      env: options.environment,
      stdio: options.output === 'kept' ? ['ignore', 'pipe', 'pipe'] : ['ignore', 2, 2],
      detached: true,
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let killer: NodeJS.Timeout | undefined;
    /** Signals the command's whole process group (the shell itself, if the group is gone). */
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      }
    };
    /** Stops the group: SIGTERM, then SIGKILL for what is still there after a grace period. */
    const stopGroup = () => {
      signalGroup('SIGTERM');
      killer ??= setTimeout(() => signalGroup('SIGKILL'), GRACE_MS);
      killer.unref();
    };
    const timer = setTimeout(() => {
      options.onTimeout?.();
      stopGroup();
    }, options.timeoutMs);
    if (options.signal?.aborted) stopGroup();
    options.signal?.addEventListener('abort', stopGroup, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new UserError(`${name} could not start: ${error.message}`));
    });
    // The command has exited: whatever it left running in its group goes too.
    child.once('exit', () => {
      clearTimeout(timer);
      stopGroup();
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stopGroup);
      resolve({ code, output });
    });
  });
}
