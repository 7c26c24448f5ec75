import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from './build-trace.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../test/paths.js';
import { importTraceText } from './load.js';
import { outcomeFromPath, taskFingerprint, taskOf } from './task.js';

const run = (content: string, metadata: Record<string, unknown> = {}) =>
  buildTrace({
    id: 'r',
    format: 'test',
    steps: [
      { speaker: 'user', role: 'human', content },
      { speaker: 'Agent', content: 'done' },
    ],
    metadata,
  });

describe('taskOf', () => {
  it('is the declared task, else a fingerprint of the first message with volatile parts masked', () => {
    assert.equal(taskOf(run('x', { task: 'nightly-42' })), 'nightly-42');
    const first = taskOf(
      run('Price the widget, request 1f0e9a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b at 2026-11-28T10:00:00Z'),
    );
    const second = taskOf(
      run(
        'Price the  widget, request 99999999-3c4d-4e5f-8a9b-0c1d2e3f4a5b at 2026-11-29T11:30:00Z',
      ),
    );
    assert.equal(first, second);
    assert.match(first!, /^task-[0-9a-f]{12}$/);
    assert.notEqual(taskOf(run('Price the gadget')), first);
    assert.equal(taskFingerprint('A  b'), taskFingerprint('a b'));
  });
});

describe('outcomeFromPath', () => {
  it('reads the nearest passed/ or failed/ folder', () => {
    assert.equal(outcomeFromPath('runs/task/passed/r1.json'), 'success');
    assert.equal(outcomeFromPath('runs/failed/x/r1.json'), 'failure');
    assert.equal(outcomeFromPath('failed/passed/r1.json'), 'success');
    assert.equal(outcomeFromPath('runs/r1.json'), 'unknown');
    assert.equal(outcomeFromPath('failed.json'), 'unknown');
  });
});

describe('a task named on OpenTelemetry spans', () => {
  it('is read from the faultline.task attribute into metadata.task', async () => {
    const document = JSON.parse(
      readFileSync(join(ROOT, 'examples/formats/otlp-genai-semconv.json'), 'utf8'),
    ) as { resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] };
    document.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes.push({
      key: 'faultline.task',
      value: { stringValue: 'refund-policy' },
    });
    const [trace] = await importTraceText(JSON.stringify(document), 'run.json');
    assert.equal(trace!.metadata.task, 'refund-policy');
    assert.equal(taskOf(trace!), 'refund-policy');
  });
});
