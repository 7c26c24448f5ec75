/**
 * The one configuration module: explicit option > environment variable > default. Every
 * environment variable faultline reads is read here.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment variables faultline itself defines. */
export const ENVIRONMENT = {
  home: 'FAULTLINE_HOME',
  prices: 'FAULTLINE_PRICES',
  token: 'FAULTLINE_TOKEN',
  /** A `postgres://` URL: the store lives in that PostgreSQL database instead of the home's file. */
  databaseUrl: 'FAULTLINE_DATABASE_URL',
  /** Connections each PostgreSQL pool may open (one pool per server thread; default 10). */
  databasePoolSize: 'FAULTLINE_DATABASE_POOL_SIZE',
  /** Set by `launch --daemon` for the server process it starts. */
  daemonChild: 'FAULTLINE_DAEMON_CHILD',
} as const;

/** The first of these environment variables that is set and not empty. */
export function environmentValue(...names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined && value.length > 0) return value;
  }
  return undefined;
}

/** Where faultline keeps state (evaluation results, the server's database): FAULTLINE_HOME or ~/.faultline. */
export function faultlineHome(explicit?: string): string {
  return explicit ?? process.env[ENVIRONMENT.home] ?? join(homedir(), '.faultline');
}

/** The database file inside a faultline home. */
export function databasePath(home: string = faultlineHome()): string {
  return join(home, 'faultline.db');
}

/**
 * The database the store opens: `--database-url`, else FAULTLINE_DATABASE_URL (a `postgres://`
 * URL), else the SQLite file in the home.
 */
export function databaseLocation(home: string = faultlineHome(), explicit?: string): string {
  return explicit ?? environmentValue(ENVIRONMENT.databaseUrl) ?? databasePath(home);
}

/** Connections a PostgreSQL pool opens at most by default. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * How many connections a PostgreSQL pool may open: the option, else
 * FAULTLINE_DATABASE_POOL_SIZE, else 10. A value that is not a positive whole number is ignored.
 */
export function databasePoolSize(explicit?: number): number {
  const value = explicit ?? Number(environmentValue(ENVIRONMENT.databasePoolSize));
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_POOL_SIZE;
}

/** The price table file: `--prices`, else FAULTLINE_PRICES. */
export function priceFile(explicit?: string): string | undefined {
  return explicit ?? environmentValue(ENVIRONMENT.prices);
}

/** The server's access token: `--token`, else FAULTLINE_TOKEN. */
export function serverToken(explicit?: string): string | undefined {
  return explicit ?? environmentValue(ENVIRONMENT.token);
}

/** True in the server process that `launch --daemon` started. */
export function isDaemonChild(): boolean {
  return process.env[ENVIRONMENT.daemonChild] === '1';
}
