import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildTrace } from '../trace/build-trace.js';
import { openDatabase } from './database.js';
import { Repository } from './repository.js';

const trace = (id: string) =>
  buildTrace({ id, format: 'test', steps: [{ speaker: 'A', content: `hello ${id}` }] });
const result = {
  agent: 'A',
  step: 0,
  reason: 'r',
  method: 'offline',
  usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
};

describe('store', () => {
  it('survives a restart and refuses a newer schema', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-store-'));
    const file = join(folder, 'faultline.db');
    try {
      const first = await openDatabase(file);
      const saved = await new Repository(first).saveTrace(trace('t1'), 't1.json');
      await new Repository(first).saveAnalysis(saved.id, { method: 'offline' }, result, 1.5);
      await first.close();
      const second = await openDatabase(file);
      const repository = new Repository(second);
      assert.equal((await repository.listHistory()).items.length, 1);
      assert.equal(
        (await repository.listAnalyses({ traceId: saved.id })).items[0]!.result.agent,
        'A',
      );
      await sql`PRAGMA user_version = 99`.execute(second.queries);
      await second.close();
      await assert.rejects(openDatabase(file), /written by a newer faultline/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('keeps every row when two connections write at once', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-store-'));
    const file = join(folder, 'faultline.db');
    try {
      const leftDb = await openDatabase(file);
      const left = new Repository(leftDb);
      const rightDb = await openDatabase(file);
      const right = new Repository(rightDb);
      const saved = await left.saveTrace(trace('shared'), 'shared.json');
      await Promise.all(
        Array.from({ length: 50 }, async (_, index) => {
          await new Promise((resolve) => setImmediate(resolve));
          await (index % 2 === 0 ? left : right).saveAnalysis(saved.id, { index }, result, index);
        }),
      );
      assert.equal((await right.listAnalyses({ traceId: saved.id })).items.length, 50);
      const { rows } = await sql`PRAGMA integrity_check`.execute(rightDb.queries);
      assert.deepEqual(rows, [{ integrity_check: 'ok' }]);
      await Promise.all([leftDb.close(), rightDb.close()]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('store: a trace as stored JSON', () => {
  it("gives the same trace as getTrace, with and without a person's label", async () => {
    const db = await openDatabase(':memory:');
    try {
      const repository = new Repository(db);
      const labelled = buildTrace({
        id: 'l',
        format: 'test',
        steps: [
          { speaker: 'A', content: 'one "quoted" \u00e9 line\nand another' },
          { speaker: 'B', content: 'two' },
        ],
        labels: { agent: 'B', step: 1 },
      });
      const { id } = await repository.saveTrace(labelled, 'l.json');
      const parsed = async () => JSON.parse((await repository.getTraceJson(id))!) as unknown;
      assert.deepEqual(await parsed(), await repository.getTrace(id));
      await repository.setUserLabel(id, { agent: 'A', step: 0, reason: 'mine' });
      assert.deepEqual(await parsed(), await repository.getTrace(id));
      assert.deepEqual(((await parsed()) as { labels: unknown }).labels, {
        agent: 'A',
        step: 0,
        reason: 'mine',
        byUser: true,
      });
      assert.equal(await repository.getTraceJson('nope'), undefined);
    } finally {
      await db.close();
    }
  });
});
