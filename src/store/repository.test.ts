import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
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
      const first = openDatabase(file);
      const saved = new Repository(first).saveTrace(trace('t1'), 't1.json');
      new Repository(first).saveAnalysis(saved.id, { method: 'offline' }, result, 1.5);
      first.close();
      const second = openDatabase(file);
      const repository = new Repository(second);
      assert.equal(repository.listHistory().items.length, 1);
      assert.equal(repository.listAnalyses({ traceId: saved.id }).items[0]!.result.agent, 'A');
      second.exec('PRAGMA user_version = 99');
      second.close();
      assert.throws(() => openDatabase(file), /written by a newer faultline/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('keeps every row when two connections write at once', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-store-'));
    const file = join(folder, 'faultline.db');
    try {
      const left = new Repository(openDatabase(file));
      const rightDb = openDatabase(file);
      const right = new Repository(rightDb);
      const saved = left.saveTrace(trace('shared'), 'shared.json');
      await Promise.all(
        Array.from({ length: 50 }, async (_, index) => {
          await new Promise((resolve) => setImmediate(resolve));
          (index % 2 === 0 ? left : right).saveAnalysis(saved.id, { index }, result, index);
        }),
      );
      assert.equal(right.listAnalyses({ traceId: saved.id }).items.length, 50);
      assert.deepEqual(rightDb.prepare('PRAGMA integrity_check').get(), { integrity_check: 'ok' });
      rightDb.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('store: a trace as stored JSON', () => {
  it("gives the same trace as getTrace, with and without a person's label", () => {
    const db = openDatabase(':memory:');
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
      const { id } = repository.saveTrace(labelled, 'l.json');
      const parsed = () => JSON.parse(repository.getTraceJson(id)!) as unknown;
      assert.deepEqual(parsed(), repository.getTrace(id));
      repository.setUserLabel(id, { agent: 'A', step: 0, reason: 'mine' });
      assert.deepEqual(parsed(), repository.getTrace(id));
      assert.deepEqual((parsed() as { labels: unknown }).labels, {
        agent: 'A',
        step: 0,
        reason: 'mine',
        byUser: true,
      });
      assert.equal(repository.getTraceJson('nope'), undefined);
    } finally {
      db.close();
    }
  });
});
