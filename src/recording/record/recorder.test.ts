import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Trace } from '../../trace/model.js';
import { Recorder } from './recorder.js';
import { recordingOf } from './recording.js';
import type { RunBuilder } from './run-builder.js';
import { openAiChat } from '../wire/openai-chat.js';

const call = (builder: RunBuilder, agent: string, text: string) => {
  const request = openAiChat.readRequest({ messages: [{ role: 'user', content: `ask ${text}` }] });
  const handle = builder.begin({ agent, agentSource: 'header', api: 'openai-chat', request });
  builder.finish(handle, { reply: { text, toolCalls: [] }, durationMs: 1 });
};

test('an idle run is let go of and continued from its file, numbering its calls on', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'faultline-recorder-'));
  try {
    const recorder = new Recorder({ folder, idleMs: 30, flushMs: 1 });
    const first = await recorder.run('r1');
    call(first, 'A', 'one');
    recorder.changed('r1');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const written = JSON.parse(readFileSync(join(folder, 'r1.json'), 'utf8')) as Trace;
    assert.deepEqual(
      written.steps.map((step) => step.content),
      ['one'],
      'the run is written as it goes, before the recorder closes',
    );
    const builder = await recorder.run('r1');
    assert.notEqual(builder, first, 'let go of while idle');
    assert.equal(builder.steps, 1, 'continued from the file');
    call(builder, 'A', 'two');
    call(builder, 'B', 'three');
    await recorder.close();
    const trace = JSON.parse(readFileSync(join(folder, 'r1.json'), 'utf8')) as Trace;
    assert.deepEqual(
      trace.steps.map((step) => step.content),
      ['one', 'two', 'three'],
    );
    assert.deepEqual(
      recordingOf(trace)!.calls.map((recorded) => [
        recorded.call,
        recorded.agent,
        recorded.agentCall,
        recorded.step,
      ]),
      [
        [0, 'A', 0, 0],
        [1, 'A', 1, 1],
        [2, 'B', 0, 2],
      ],
    );
    assert.deepEqual(recorder.runIds(), ['r1']);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
