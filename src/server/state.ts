/**
 * The running server's state in FAULTLINE_HOME: `server.json` (pid, address, start time) and
 * `server.log`. A state file whose process is gone is stale and is cleaned up by whoever finds it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** What `server.json` holds. */
export interface ServerState {
  pid: number;
  host: string;
  port: number;
  url: string;
  /** Where the second listener takes OTLP spans (`--otlp-port`), when there is one. */
  otlpUrl?: string;
  startedAt: string;
}

export const stateFile = (home: string) => join(home, 'server.json');
export const logFile = (home: string) => join(home, 'server.log');

/** True when a process with this pid exists (signal 0 checks without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The recorded state, if the file exists and is readable. */
export function readState(home: string): ServerState | undefined {
  const file = stateFile(home);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ServerState;
  } catch {
    return undefined;
  }
}

/** The state of a live server; a stale file is removed and reported. */
export function liveState(home: string): { state?: ServerState; staleRemoved: boolean } {
  const state = readState(home);
  if (!state) {
    const stale = existsSync(stateFile(home));
    if (stale) rmSync(stateFile(home), { force: true });
    return { staleRemoved: stale };
  }
  if (isAlive(state.pid)) return { state, staleRemoved: false };
  rmSync(stateFile(home), { force: true });
  return { staleRemoved: true };
}

export function writeState(home: string, state: ServerState): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(stateFile(home), `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file if it still describes this process. */
export function clearState(home: string, pid: number): void {
  if (readState(home)?.pid === pid) rmSync(stateFile(home), { force: true });
}
