/**
 * AG2 / AutoGen 0.2 `runtime_logging` SQLite databases (`logs.db`): model calls in
 * `chat_completions` (speaker `source_name`, reply in `response`), tool runs in `function_calls`,
 * and `events` (`received_message`) when no model calls were logged. Read with better-sqlite3
 * (the store's SQLite), which opens the file's bytes in memory: nothing is written to disk.
 */
import type { Database } from 'better-sqlite3';
import { TraceFormatError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  parseJsonOr,
  openAiToolCalls,
  completionMessage,
  isObject,
  textOf,
  type TraceFormat,
} from '../format.js';
import { callsText } from '../step-text.js';
import { sortKeyOfTime } from '../spans.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'ag2-sqlite';

type Row = Record<string, unknown>;

function rows(database: Database, sql: string): Row[] {
  return database.prepare(sql).all() as Row[];
}

function tables(database: Database): Set<string> {
  return new Set(
    rows(database, "SELECT name FROM sqlite_master WHERE type = 'table'").map((row) =>
      String(row.name),
    ),
  );
}

/** A timed step, so the three tables can be merged in time order. */
interface TimedStep {
  time: bigint;
  order: number;
  step: DraftStep;
}

function completionSteps(database: Database): TimedStep[] {
  return rows(
    database,
    'SELECT source_name, request, response, start_time FROM chat_completions ORDER BY id',
  ).map((row, order) => {
    const response = parseJsonOr(row.response);
    const message = completionMessage(response);
    const calls = openAiToolCalls(message);
    const content = textOf(message.content) || callsText(calls) || textOf(response);
    const step: DraftStep = {
      speaker: String(row.source_name ?? 'agent'),
      role: 'agent',
      content,
      toolCalls: calls,
    };
    if (row.start_time) step.timestamp = String(row.start_time);
    return { time: sortKeyOfTime(row.start_time), order, step };
  });
}

function functionSteps(database: Database): TimedStep[] {
  return rows(
    database,
    'SELECT source_name, function_name, args, returns, timestamp FROM function_calls',
  ).map((row, order) => {
    const name = String(row.function_name ?? 'function');
    const result = textOf(parseJsonOr(row.returns));
    const step: DraftStep = {
      speaker: String(row.source_name ?? name),
      role: 'tool',
      content: `${name}(${String(row.args ?? '')})\n${result}`,
      toolResults: [{ name, content: result }],
    };
    if (row.timestamp) step.timestamp = String(row.timestamp);
    return { time: sortKeyOfTime(row.timestamp), order: 1_000_000 + order, step };
  });
}

function eventSteps(database: Database): TimedStep[] {
  return rows(
    database,
    "SELECT event_name, source_name, json_state, timestamp FROM events WHERE event_name = 'received_message' ORDER BY id",
  ).map((row, order) => {
    const state = parseJsonOr(row.json_state);
    const message = isObject(state) ? state.message : undefined;
    const sender =
      isObject(state) && typeof state.sender === 'string'
        ? state.sender
        : String(row.source_name ?? 'agent');
    const step: DraftStep = { speaker: sender, content: textOf(message) };
    if (row.timestamp) step.timestamp = String(row.timestamp);
    return { time: sortKeyOfTime(row.timestamp), order, step };
  });
}

export const ag2SqliteFormat: TraceFormat = {
  name: NAME,
  description: 'AG2/AutoGen 0.2 runtime_logging SQLite database (logs.db)',
  detect(input) {
    return input.kind === 'sqlite';
  },
  async parse(input, context) {
    if (input.kind !== 'sqlite')
      throw new TraceFormatError(context.file, 'expected a SQLite database', { format: NAME });
    // Loaded on demand: the native SQLite module is only needed for these files.
    const { default: SqliteDatabase } = await import('better-sqlite3');
    let database: Database;
    try {
      database = new SqliteDatabase(Buffer.from(input.bytes));
    } catch (error) {
      throw new TraceFormatError(context.file, 'the SQLite database cannot be opened', {
        format: NAME,
        cause: error,
      });
    }
    try {
      const present = tables(database);
      if (!present.has('chat_completions') && !present.has('events')) {
        throw new TraceFormatError(
          context.file,
          'this SQLite database has no AG2 runtime-logging tables (chat_completions, events)',
          { format: NAME },
        );
      }
      const completions = present.has('chat_completions') ? completionSteps(database) : [];
      const timed = [
        ...completions,
        ...(present.has('function_calls') ? functionSteps(database) : []),
        ...(completions.length === 0 && present.has('events') ? eventSteps(database) : []),
      ].sort((left, right) =>
        left.time < right.time ? -1 : left.time > right.time ? 1 : left.order - right.order,
      );
      const steps = timed.map((entry) => entry.step);
      requireSteps(steps, context.file, NAME, 'chat_completions');
      return [buildTrace({ id: context.id, format: NAME, source: context.file, steps })];
    } catch (error) {
      if (error instanceof TraceFormatError) throw error;
      throw new TraceFormatError(
        context.file,
        `cannot read the AG2 log tables: ${error instanceof Error ? error.message : String(error)}`,
        { format: NAME, cause: error },
      );
    } finally {
      database.close();
    }
  },
};
