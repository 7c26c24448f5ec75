/** `faultline stop`: stops the background server (SIGTERM, then waits up to 30 s while
 * it stores the live runs it holds). */
import type { Command } from 'commander';
import { faultlineHome } from '../../config.js';
import { UserError } from '../../errors.js';
import { isAlive, liveState } from '../../server/state.js';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Registers `faultline stop`. */
export function registerStop(program: Command, exit: (code: number) => void): void {
  program
    .command('stop')
    .description('stop the background server')
    .addHelpText('after', '\nExample:\n  faultline stop')
    .action(async () => {
      const home = faultlineHome();
      const { state, staleRemoved } = liveState(home);
      if (!state) {
        process.stdout.write(
          `faultline is not running${staleRemoved ? ' (removed a stale pid file)' : ''}\n`,
        );
        exit(0);
        return;
      }
      process.kill(state.pid, 'SIGTERM');
      for (let attempt = 0; attempt < 300 && isAlive(state.pid); attempt += 1) await sleep(100);
      if (isAlive(state.pid))
        throw new UserError(
          `faultline (pid ${state.pid}) did not stop within 30 s; kill it with: kill -9 ${state.pid}`,
        );
      liveState(home);
      process.stdout.write(`stopped faultline (pid ${state.pid})\n`);
      exit(0);
    });
}
