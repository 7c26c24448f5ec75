/**
 * The server's commands, in the order `faultline --help` lists them: `launch [--daemon]`,
 * `status`, `logs [-f]`, `stop`. Each lives in a file of its own; this one only wires them.
 */
import type { Command } from 'commander';
import { registerLaunch } from './launch.js';
import { registerLogs } from './logs.js';
import { registerStatus } from './status.js';
import { registerStop } from './stop.js';

/** Registers launch, status, logs and stop. */
export function registerServer(program: Command, exit: (code: number) => void): void {
  registerLaunch(program, exit);
  registerStatus(program, exit);
  registerLogs(program, exit);
  registerStop(program, exit);
}
