/** `faultline status`: whether the server is running, where, and for how long. */
import type { Command } from 'commander';
import { faultlineHome } from '../../config.js';
import { liveState, logFile } from '../../server/state.js';

function uptime(startedAt: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(startedAt)) / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0
    ? `${hours}h ${minutes}m`
    : minutes > 0
      ? `${minutes}m ${seconds % 60}s`
      : `${seconds}s`;
}

/** Registers `faultline status` (exit code 0 when running, 3 when not). */
export function registerStatus(program: Command, exit: (code: number) => void): void {
  program
    .command('status')
    .description('say whether the server is running, where, and for how long')
    .addHelpText('after', '\nExit code 0 when running, 3 when not.\n\nExample:\n  faultline status')
    .action(() => {
      const { state, staleRemoved } = liveState(faultlineHome());
      if (!state) {
        process.stdout.write(
          `faultline is not running${staleRemoved ? ' (removed a stale pid file)' : ''}\n`,
        );
        exit(3);
        return;
      }
      process.stdout.write(
        `faultline is running at ${state.url}\n  pid     ${state.pid}\n  uptime  ${uptime(state.startedAt)}\n  logs    ${logFile(faultlineHome())}\n`,
      );
      exit(0);
    });
}
