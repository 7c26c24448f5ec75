/**
 * The PostgreSQL store: node-postgres's pool (`pg.Pool`) behind Kysely's PostgreSQL dialect.
 * Statements of different requests are in flight at once on different connections; a
 * transaction runs on one client checked out for it. Nothing waits on the network but promises.
 * A lost connection costs the statements on it: the pool drops the client and connects again on
 * the next checkout, so a database restart is answered with 503s (unavailable.ts) while it lasts
 * and needs nothing after. The pool opens at most `poolSize` connections (config.ts).
 */
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { databasePoolSize } from '../config.js';
import { redactUrl, type Db } from './driver.js';
import { migratePostgres } from './postgres-schema.js';
import type { StoreTables } from './tables.js';
import { unavailableOr } from './unavailable.js';

/** Settings of a PostgreSQL store. */
export interface PostgresOptions {
  /** Connections the pool may open (default: FAULTLINE_DATABASE_POOL_SIZE, else 10). */
  poolSize?: number;
  /** Where a lost idle connection is reported (default: nowhere; the pool replaces it). */
  log?: (line: string) => void;
}

// Counts and sums are 64-bit in PostgreSQL (strings in node-postgres); SQLite gives numbers.
const numeric = (value: string) => Number(value);
const getTypeParser = ((oid: number, format?: string) =>
  oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
    ? numeric
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

/** How long a checkout may wait for a connection before the request is answered 503. */
const CONNECT_TIMEOUT_MS = 5_000;

/** A pool of connections to `url`, whose lost connections never end the process. */
export function createPool(url: string, options: PostgresOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: databasePoolSize(options.poolSize),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types: { getTypeParser },
  });
  const location = redactUrl(url);
  // An idle client whose connection ends (the server restarting) is reported here and dropped.
  pool.on('error', (error) =>
    options.log?.(`warning: a PostgreSQL connection to ${location} was lost: ${error.message}`),
  );
  // A checked-out client has no pool listener; its statement fails instead, and this keeps the
  // client's 'error' event from ending the process.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** How many statement texts get a prepared statement of their own (the store has a few dozen). */
const MAX_PREPARED = 500;

/**
 * A name per statement text, so that each connection parses and plans a statement once and then
 * only binds its values (node-postgres prepares a named statement on first use per connection).
 * Texts of several statements (migrations) cannot be prepared and go unnamed.
 */
function preparedNames(): (text: string) => { name?: string } {
  const names = new Map<string, string>();
  return (text) => {
    if (text.includes(';')) return {};
    let name = names.get(text);
    if (!name && names.size < MAX_PREPARED) {
      name = `faultline_${names.size + 1}`;
      names.set(text, name);
    }
    return name ? { name } : {};
  };
}

/**
 * The pool as Kysely's driver sees it, with every failure to reach the server turned into a
 * StoreUnavailableError (on checkout and on each statement, including BEGIN and COMMIT).
 */
function guarded(pool: pg.Pool, location: string): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const named = preparedNames();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapped = clients.get(client);
    if (!wrapped) {
      wrapped = {
        query: ((text: string, values: readonly unknown[]) =>
          client.query({ text, values: [...values], ...named(text) }).catch((error: unknown) => {
            throw unavailableOr(error, location);
          })) as unknown as PostgresPoolClient['query'],
        release: (destroy) => client.release(destroy),
      };
      clients.set(client, wrapped);
    }
    return wrapped;
  };
  return {
    connect: () =>
      pool.connect().then(wrap, (error: unknown) => {
        throw unavailableOr(error, location);
      }),
    end: () => pool.end(),
  };
}

/** Connects to the PostgreSQL database at `url` and brings its schema up to date. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Db> {
  const location = redactUrl(url);
  const pool = createPool(url, options);
  const queries = new Kysely<StoreTables>({
    dialect: new PostgresDialect({ pool: guarded(pool, location) }),
  });
  try {
    await migratePostgres(queries, location);
  } catch (error) {
    await queries.destroy();
    throw error;
  }
  return { dialect: 'postgres', location, queries, close: () => queries.destroy() };
}
