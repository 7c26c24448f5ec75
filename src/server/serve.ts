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
import { isLoopback, isWildcard } from './auth.js';
import { JobPool } from './job-pool.js';
import { clearState, logFile, writeState, type ServerState } from './state.js';

/** Settings of a server start. */
export interface ServeOptions {
  home: string;
  host: string;
  port: number;
  token?: string;
  /** Host names the page may be opened at besides loopback ones (token mode only). */
  publicHosts?: string[];
  /** The model endpoint for LLM methods; the server's keys go only here and to built-in providers. */
  baseUrl?: string;
  /** Job worker threads (default: one per core but one). */
  workers?: number;
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
  if (options.publicHosts?.length && !options.token)
    throw new UserError('--public-host is for token mode: add --token (or FAULTLINE_TOKEN)');
  mkdirSync(options.home, { recursive: true });
  const log = (line: string) => {
    const stamped = `${new Date().toISOString()} ${line}`;
    appendFileSync(logFile(options.home), `${stamped}\n`);
    if (options.echo) process.stdout.write(`${stamped}\n`);
  };
  const databaseFile = databasePath(options.home);
  const db = openDatabase(databaseFile);
  const repository = new Repository(db);
  const jobs = new JobPool({
    databaseFile,
    repository,
    log,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  });
  // The port is known once the socket is bound (port 0 picks one); the host check reads it then.
  const bound: { port?: number } = {};
  // Token mode accepts the bound address and the named public hosts; bound to every interface with
  // none named, any host (the token is then the only guard, and the log says so).
  const publicHosts = [
    ...(options.token && !isLoopback(options.host) && !isWildcard(options.host)
      ? [options.host.includes(':') ? `[${options.host}]` : options.host]
      : []),
    ...(options.publicHosts ?? []),
  ];
  const anyHost = Boolean(options.token) && isWildcard(options.host) && publicHosts.length === 0;
  const app = createApp({
    repository,
    jobs,
    ...(options.token ? { token: options.token } : {}),
    port: () => bound.port,
    publicHosts,
    anyHost,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    log,
    logRequests: true,
  });

  const server = await new Promise<ServerType>((resolve, reject) => {
    const instance = serve({ fetch: app.fetch, hostname: options.host, port: options.port });
    instance.once('listening', () => resolve(instance));
    instance.once('error', (error: NodeJS.ErrnoException) => {
      void jobs.close();
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
  bound.port = port;
  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const state: ServerState = {
    pid: process.pid,
    host: options.host,
    port,
    url: `http://${displayHost}:${port}/`,
    startedAt: new Date().toISOString(),
  };
  writeState(options.home, state);
  log(`listening on ${state.url} (pid ${process.pid}, database ${databaseFile})`);
  if (anyHost)
    log(
      'any Host header is accepted (bound to every interface in token mode): name the address the page is opened at with --public-host to refuse others',
    );

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const closing = new Promise<void>((resolve) => server.close(() => resolve()));
    // Idle keep-alive connections would hold close() open.
    if ('closeAllConnections' in server) server.closeAllConnections();
    await closing;
    await jobs.close();
    db.close();
    clearState(options.home, process.pid);
    log('stopped');
  };
  return { state, stop };
}
