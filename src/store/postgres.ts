/**
 * The PostgreSQL driver: node-postgres on a thread of its own (postgres-worker.ts), called
 * synchronously. Each statement is posted to that thread and this one blocks (Atomics.wait)
 * until the reply is back, so the store keeps one synchronous interface for both databases and
 * its callers do not change. A statement is one round trip, as a SQLite call is one step: bulk
 * paths store a run or a trace as one row, never row by row. The blocking is why this thread's
 * transactions need no further guard: nothing else runs on it until they end. It is also why a
 * thread holds one connection: a second one waiting on a lock the first holds would wait forever
 * (until REPLY_TIMEOUT_MS), since the first cannot go on while this thread waits.
 */
import {
  receiveMessageOnPort,
  MessageChannel,
  Worker,
  type MessagePort,
} from 'node:worker_threads';
import { UserError } from '../errors.js';
import { redactUrl, type Db, type Parameters, type Statement } from './driver.js';
import { migratePostgres } from './postgres-schema.js';

/** A statement as posted to the connection thread. */
export type PostgresRequest =
  { id: number; kind: 'query'; text: string; values: unknown[] } | { id: number; kind: 'close' };

/** The connection thread's answer. */
export type PostgresReply =
  | { id: number; ok: true; rows: unknown[]; changes: number }
  | { id: number; ok: false; message: string; code?: string; connecting: boolean };

/** A statement in PostgreSQL's terms: `$n` placeholders, and the names they stand for. */
export interface Translated {
  text: string;
  /** The `@name` of each `$n`, in order; undefined when the statement uses `?`. */
  names?: string[];
  /** How many `?` there are. */
  positional: number;
}

/**
 * Rewrites `?` and `@name` placeholders to `$n` (a name used twice is one `$n`), leaving quoted
 * text alone.
 */
export function translatePlaceholders(sql: string): Translated {
  let text = '';
  let positional = 0;
  const names: string[] = [];
  for (let index = 0; index < sql.length; index += 1) {
    const character = sql[index]!;
    if (character === "'" || character === '"') {
      const end = sql.indexOf(character, index + 1);
      const stop = end === -1 ? sql.length : end + 1;
      text += sql.slice(index, stop);
      index = stop - 1;
    } else if (character === '?') {
      positional += 1;
      text += `$${positional}`;
    } else if (character === '@' && /[A-Za-z_]/.test(sql[index + 1] ?? '')) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(index + 1))![0];
      let position = names.indexOf(name);
      if (position === -1) position = names.push(name) - 1;
      text += `$${position + 1}`;
      index += name.length;
    } else text += character;
  }
  return names.length > 0 ? { text, names, positional } : { text, positional };
}

/** How long one statement may take before this thread gives up waiting (five minutes). */
const REPLY_TIMEOUT_MS = 300_000;

/** How long the connection thread may take to load before this thread gives up (30 s). */
const STARTUP_TIMEOUT_MS = 30_000;

/** How the connection thread starts: the compiled file, or under tsx (tests, `npm run` from source). */
function startConnectionThread(workerData: unknown, transferList: MessagePort[]): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./postgres-worker.js', import.meta.url), {
      workerData,
      transferList,
      // `node --input-type=module -e …` would make the thread read its file as that input.
      execArgv: process.execArgv.filter((argument) => !argument.startsWith('--input-type')),
    });
  // Worker threads do not inherit tsx's loader hooks: the worker registers them first.
  const entry = new URL('./postgres-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`,
    { eval: true, workerData, transferList },
  );
}

/** A PostgreSQL connection with the store's synchronous interface. */
export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  readonly location: string;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  /** [0]: a reply is waiting; [1]: the connection thread has loaded. */
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private readonly statements = new Map<string, Translated>();
  private nextId = 1;
  private depth = 0;
  private closed = false;

  constructor(url: string) {
    this.location = redactUrl(url);
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = startConnectionThread({ url, signal: this.signal.buffer, port: channel.port2 }, [
      channel.port2,
    ]);
    // The thread ends with close(); until then it must not keep the process alive by itself.
    this.worker.unref();
    this.port.unref();
    // A thread that fails to load reports it as an event this thread cannot see while it waits,
    // so its loading is waited for on its own, with a shorter bound than a statement's.
    if (Atomics.wait(this.signal, 1, 0, STARTUP_TIMEOUT_MS) === 'timed-out') {
      this.closed = true;
      void this.worker.terminate();
      throw new Error(
        `${this.location}: the PostgreSQL connection thread did not start within ${STARTUP_TIMEOUT_MS} ms`,
      );
    }
  }

  /** Runs one statement and waits for its rows. */
  query(text: string, values: unknown[] = []): { rows: unknown[]; changes: number } {
    const reply = this.call({ id: this.nextId++, kind: 'query', text, values });
    return { rows: reply.rows, changes: reply.changes };
  }

  private call(request: PostgresRequest): Extract<PostgresReply, { ok: true }> {
    if (this.closed) throw new Error(`${this.location}: the connection is closed`);
    Atomics.store(this.signal, 0, 0);
    this.port.postMessage(request);
    const deadline = Date.now() + REPLY_TIMEOUT_MS;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.signal, 0, 0, left) === 'timed-out')
        throw new Error(
          `${this.location}: PostgreSQL did not answer within ${REPLY_TIMEOUT_MS} ms`,
        );
      // Cleared before the port is read, so a reply posted meanwhile sets it again.
      Atomics.store(this.signal, 0, 0);
      // A reply to a statement given up on earlier is read and dropped.
      for (let message = receiveMessageOnPort(this.port); message;) {
        const reply = message.message as PostgresReply;
        if (reply.id === request.id) return this.checked(reply);
        message = receiveMessageOnPort(this.port);
      }
    }
  }

  private checked(reply: PostgresReply): Extract<PostgresReply, { ok: true }> {
    if (reply.ok) return reply;
    if (reply.connecting)
      throw new UserError(
        `cannot reach PostgreSQL at ${this.location} (${reply.message}): check FAULTLINE_DATABASE_URL or --database-url, and that the server runs`,
      );
    throw Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {});
  }

  prepare(sql: string): Statement {
    let translated = this.statements.get(sql);
    if (!translated) {
      translated = translatePlaceholders(sql);
      if (this.statements.size < 500) this.statements.set(sql, translated);
    }
    const { text, names, positional } = translated;
    const valuesOf = (parameters: Parameters): unknown[] => {
      // An empty object of named values may come with a statement that has none.
      if (!names) return positional === 0 ? [] : parameters;
      const named = (parameters[0] ?? {}) as Record<string, unknown>;
      return names.map((name) => named[name]);
    };
    return {
      get: (...parameters) => this.query(text, valuesOf(parameters)).rows[0],
      all: (...parameters) => this.query(text, valuesOf(parameters)).rows,
      run: (...parameters) => ({ changes: this.query(text, valuesOf(parameters)).changes }),
    };
  }

  transaction<Result>(body: () => Result): () => Result {
    return () => {
      const savepoint = this.depth > 0 ? `faultline_${this.depth}` : undefined;
      this.exec(savepoint ? `SAVEPOINT ${savepoint}` : 'BEGIN');
      this.depth += 1;
      let result: Result;
      try {
        result = body();
      } catch (error) {
        this.depth -= 1;
        this.exec(savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}` : 'ROLLBACK');
        throw error;
      }
      this.depth -= 1;
      try {
        this.exec(savepoint ? `RELEASE SAVEPOINT ${savepoint}` : 'COMMIT');
      } catch (error) {
        // A failed COMMIT has ended the transaction already; a failed RELEASE has not.
        if (savepoint) this.exec(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        throw error;
      }
      return result;
    };
  }

  exec(sql: string): void {
    this.query(sql);
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ id: this.nextId++, kind: 'close' });
    } finally {
      this.closed = true;
      void this.worker.terminate();
      this.port.close();
    }
  }
}

/** Connects to the PostgreSQL database at `url` and brings its schema up to date. */
export function openPostgres(url: string): PostgresDb {
  const db = new PostgresDb(url);
  try {
    migratePostgres(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
