/**
 * The thread that holds a PostgreSQL connection for postgres.ts: it runs each statement posted
 * to it, posts the reply and wakes the waiting thread. It connects on the first statement and
 * again after the connection is lost, so a database restart costs the statements in flight only.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';
import type { PostgresReply, PostgresRequest } from './postgres.js';

const { url, signal, port } = workerData as {
  url: string;
  signal: SharedArrayBuffer;
  port: MessagePort;
};
const flag = new Int32Array(signal);

// Counts and sums are 64-bit in PostgreSQL (strings in node-postgres); SQLite gives numbers.
const numeric = (value: string) => Number(value);
const getTypeParser = ((oid: number, format?: string) =>
  oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
    ? numeric
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

let client: pg.Client | undefined;

async function connection(): Promise<pg.Client> {
  if (client) return client;
  const fresh = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    types: { getTypeParser },
  });
  // A lost connection is dropped here; the next statement connects again.
  fresh.on('error', () => {
    if (client === fresh) client = undefined;
  });
  await fresh.connect();
  client = fresh;
  return fresh;
}

function reply(message: PostgresReply): void {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

async function answer(request: PostgresRequest): Promise<void> {
  let connecting = true;
  try {
    if (request.kind === 'close') {
      await client?.end();
      client = undefined;
      reply({ id: request.id, ok: true, rows: [], changes: 0 });
      return;
    }
    const connected = await connection();
    connecting = false;
    const result = await connected.query({ text: request.text, values: request.values });
    // A string of several statements answers with one result per statement; the last counts.
    const last = Array.isArray(result) ? (result.at(-1) as pg.QueryResult) : result;
    reply({ id: request.id, ok: true, rows: last?.rows ?? [], changes: last?.rowCount ?? 0 });
  } catch (error) {
    reply({
      id: request.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      ...(typeof (error as { code?: unknown }).code === 'string'
        ? { code: (error as { code: string }).code }
        : {}),
      connecting,
    });
  }
}

// The waiting thread posts one statement at a time, so replies keep their order.
port.on('message', (request: PostgresRequest) => void answer(request));
// Loaded: the thread that started this one stops waiting for it.
Atomics.store(flag, 1, 1);
Atomics.notify(flag, 1);
