/**
 * Starting the server in this process: database, application, listening socket, state file, and
 * a clean shutdown on SIGINT/SIGTERM (the database is closed, the state file removed).
 */
import { serve, type ServerType } from '@hono/node-server';
import { appendFileSync, mkdirSync } from 'node:fs';
import { databaseLocation } from '../config.js';
import { UserError } from '../errors.js';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { createApp } from './app.js';
import { isLoopback, isWildcard } from './auth.js';
import { JobPool } from './job-pool.js';
import type { LiveIngest } from '../live/ingest.js';
import { createLiveIngest, rereadAtStart, type LiveSettings } from './live.js';
import { otlpApp } from './otlp-routes.js';
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
  /** Longest a job may run, in milliseconds (default: job-deadline.ts). */
  jobDeadlineMs?: number;
  /** Also print log lines to stdout (foreground runs). */
  echo?: boolean;
  /** A second port that takes only OTLP spans on /v1/traces (4318 by convention; default none). */
  otlpPort?: number;
  /** Live ingest: quiet period, timeouts, caps, an LLM method for failed runs. */
  live?: LiveSettings;
  /** A `postgres://` URL to keep the store in (default: FAULTLINE_DATABASE_URL, else the home's file). */
  databaseUrl?: string;
}

/** Listens on host:port; a port in use or not allowed is a UserError saying what to do. */
function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
  flag: string,
): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const instance = serve({ fetch, hostname: host, port });
    instance.once('listening', () => resolve(instance));
    instance.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new UserError(
            `port ${port} on ${host} is already in use: choose another with ${flag}, or stop what holds it`,
          ),
        );
      else if (error.code === 'EACCES')
        reject(
          new UserError(`no permission to listen on ${host}:${port}: choose a port above 1024`),
        );
      else reject(error);
    });
  });
}

const portOf = (server: ServerType, fallback: number) => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
};

/** Refuses a start that would expose the server without a token. */
function checkExposure(options: ServeOptions): void {
  if (!isLoopback(options.host) && !options.token)
    throw new UserError(
      `binding ${options.host} exposes faultline beyond this machine: set a token with --token or FAULTLINE_TOKEN`,
    );
  if (options.publicHosts?.length && !options.token)
    throw new UserError('--public-host is for token mode: add --token (or FAULTLINE_TOKEN)');
}

/** The server's log: a stamped line appended to server.log (and echoed in the foreground). */
function serverLog(options: ServeOptions): (line: string) => void {
  return (line) => {
    const stamped = `${new Date().toISOString()} ${line}`;
    appendFileSync(logFile(options.home), `${stamped}\n`);
    if (options.echo) process.stdout.write(`${stamped}\n`);
  };
}

/**
 * The host names accepted besides loopback ones. Token mode accepts the bound address and the
 * named public hosts; bound to every interface with none named, any host (the token is then the
 * only guard, and the log says so).
 */
function hostsOf(options: ServeOptions): { publicHosts: string[]; anyHost: boolean } {
  const publicHosts = [
    ...(options.token && !isLoopback(options.host) && !isWildcard(options.host)
      ? [options.host.includes(':') ? `[${options.host}]` : options.host]
      : []),
    ...(options.publicHosts ?? []),
  ];
  return {
    publicHosts,
    anyHost: Boolean(options.token) && isWildcard(options.host) && publicHosts.length === 0,
  };
}

/** How long a shutdown waits for live runs to be stored (`faultline stop` waits 30 s). */
const SHUTDOWN_FLUSH_MS = 20_000;

/**
 * Stores the live runs still waiting, for SHUTDOWN_FLUSH_MS at most; a failure is logged and the
 * shutdown goes on (the database closed, the state file removed).
 */
async function flushLive(live: LiveIngest, log: (line: string) => void): Promise<void> {
  const flushed = await Promise.race([
    live.close({ flush: true }).then(
      () => true,
      (error: unknown) => {
        log(`error: live: runs waiting at shutdown were not stored: ${String(error)}`);
        return true;
      },
    ),
    new Promise<false>((resolve) => setTimeout(resolve, SHUTDOWN_FLUSH_MS, false).unref()),
  ]);
  if (!flushed)
    log(
      `error: live: runs still being stored after ${SHUTDOWN_FLUSH_MS / 1000} s were not stored; their spans are lost unless the app exports them again (runs stored before are kept)`,
    );
}

/** Closes a listener, dropping idle keep-alive connections that would hold close() open. */
function closeListener(listener: ServerType): Promise<void> {
  const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
  if ('closeAllConnections' in listener) listener.closeAllConnections();
  return closed;
}

/** What server.json records of a started server. */
function stateOf(host: string, port: number, otlpPort: number | undefined): ServerState {
  const displayHost = host.includes(':') ? `[${host}]` : host;
  return {
    pid: process.pid,
    host,
    port,
    url: `http://${displayHost}:${port}/`,
    ...(otlpPort !== undefined ? { otlpUrl: `http://${displayHost}:${otlpPort}/v1/traces` } : {}),
    startedAt: new Date().toISOString(),
  };
}

/** Starts listening; resolves once the port is bound, with a function that stops everything. */
export async function startServer(
  options: ServeOptions,
): Promise<{ state: ServerState; stop: () => Promise<void> }> {
  checkExposure(options);
  mkdirSync(options.home, { recursive: true });
  const log = serverLog(options);
  const databaseFile = databaseLocation(options.home, options.databaseUrl);
  const db = await openDatabase(databaseFile, { log });
  const repository = new Repository(db);
  const { workers, jobDeadlineMs } = options;
  const jobs = new JobPool({ databaseFile, repository, log, workers, jobDeadlineMs });
  const live = createLiveIngest(jobs, log, {
    ...options.live,
    ...(options.live?.llm
      ? {
          llm: {
            ...options.live.llm,
            ...(options.baseUrl && !options.live.llm.baseUrl ? { baseUrl: options.baseUrl } : {}),
          },
        }
      : {}),
  });
  // The port is known once the socket is bound (port 0 picks one); the host check reads it then.
  const bound: { port?: number; otlpPort?: number } = {};
  const { publicHosts, anyHost } = hostsOf(options);
  const app = createApp({
    repository,
    jobs,
    ...(options.token ? { token: options.token } : {}),
    port: () => bound.port,
    publicHosts,
    anyHost,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    live,
    log,
    logRequests: true,
  });

  let server: ServerType;
  let otlpServer: ServerType | undefined;
  try {
    server = await listen(app.fetch, options.host, options.port, '--port');
    if (options.otlpPort !== undefined) {
      const receiver = otlpApp(
        live,
        {
          ...(options.token ? { token: options.token } : {}),
          port: () => bound.otlpPort,
          publicHosts,
          anyHost,
        },
        log,
      );
      otlpServer = await listen(
        receiver.fetch,
        options.host,
        options.otlpPort,
        '--otlp-port',
      ).catch((error: unknown) => {
        server.close();
        throw error;
      });
    }
  } catch (error) {
    await live.close();
    await jobs.close();
    await db.close();
    throw error;
  }
  const port = portOf(server, options.port);
  bound.port = port;
  if (otlpServer) bound.otlpPort = portOf(otlpServer, options.otlpPort!);
  const state = stateOf(options.host, port, bound.otlpPort);
  writeState(options.home, state);
  log(`listening on ${state.url} (pid ${process.pid}, database ${db.location})`);
  log(`OTLP spans: POST ${state.url}v1/traces${state.otlpUrl ? ` and ${state.otlpUrl}` : ''}`);
  if (anyHost)
    log(
      'any Host header is accepted (bound to every interface in token mode): name the address the page is opened at with --public-host to refuse others',
    );

  rereadAtStart(jobs, log, options.live?.llm); // this version's readers may know them now
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all([server, ...(otlpServer ? [otlpServer] : [])].map(closeListener));
    // Runs still waiting for their quiet period are stored before the database closes, for as
    // long as `faultline stop` waits less a margin: a worker still starting on a loaded machine
    // must not keep the server up past it.
    await flushLive(live, log);
    await jobs.close();
    await db.close();
    clearState(options.home, process.pid);
    log('stopped');
  };
  return { state, stop };
}
