/**
 * Starting the server in this process: database, application, listening socket, state file, and
 * a clean shutdown on SIGINT/SIGTERM (the database is closed, the state file removed).
 */
import { serve, type ServerType } from '@hono/node-server';
import { appendFileSync, mkdirSync } from 'node:fs';
import { databasePath } from '../config.js';
import { UserError } from '../errors.js';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { createApp } from './app.js';
import { isLoopback } from './auth.js';
import { clearState, logFile, writeState, type ServerState } from './state.js';

/** Settings of a server start. */
export interface ServeOptions {
  home: string;
  host: string;
  port: number;
  token?: string;
  /** Also print log lines to stdout (foreground runs). */
  echo?: boolean;
}

/** Starts listening; resolves once the port is bound, with a function that stops everything. */
export async function startServer(
  options: ServeOptions,
): Promise<{ state: ServerState; stop: () => Promise<void> }> {
  if (!isLoopback(options.host) && !options.token) {
    throw new UserError(
      `binding ${options.host} exposes faultline beyond this machine: set a token with --token or FAULTLINE_TOKEN`,
    );
  }
  mkdirSync(options.home, { recursive: true });
  const log = (line: string) => {
    const stamped = `${new Date().toISOString()} ${line}`;
    appendFileSync(logFile(options.home), `${stamped}\n`);
    if (options.echo) process.stdout.write(`${stamped}\n`);
  };
  const db = openDatabase(databasePath(options.home));
  const app = createApp({
    repository: new Repository(db),
    ...(options.token ? { token: options.token } : {}),
    loopbackOnly: isLoopback(options.host),
    log,
    logRequests: true,
  });

  const server = await new Promise<ServerType>((resolve, reject) => {
    const instance = serve({ fetch: app.fetch, hostname: options.host, port: options.port });
    instance.once('listening', () => resolve(instance));
    instance.once('error', (error: NodeJS.ErrnoException) => {
      db.close();
      if (error.code === 'EADDRINUSE')
        reject(
          new UserError(
            `port ${options.port} on ${options.host} is already in use: choose another with --port, or stop what holds it`,
          ),
        );
      else if (error.code === 'EACCES')
        reject(
          new UserError(
            `no permission to listen on ${options.host}:${options.port}: choose a port above 1024`,
          ),
        );
      else reject(error);
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const state: ServerState = {
    pid: process.pid,
    host: options.host,
    port,
    url: `http://${displayHost}:${port}/`,
    startedAt: new Date().toISOString(),
  };
  writeState(options.home, state);
  log(`listening on ${state.url} (pid ${process.pid}, database ${databasePath(options.home)})`);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const closing = new Promise<void>((resolve) => server.close(() => resolve()));
    // Idle keep-alive connections would hold close() open.
    if ('closeAllConnections' in server) server.closeAllConnections();
    await closing;
    db.close();
    clearState(options.home, process.pid);
    log('stopped');
  };
  return { state, stop };
}
