/**
 * Nesting: a trace nested far deeper than real traces (5,000 and 100,000 levels of arrays or
 * objects in a step, in each common format) is refused with one line naming the file and where,
 * never a stack overflow; JSON text nested that deep inside a field stays text; and a trace nested
 * up to the limit goes through every stage of this layer that walks values by recursion (the
 * command's own stages: src/cli/batch.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../test/paths.js';
import { TraceFormatError } from '../errors.js';
import { toMessagesDocument } from './export.js';
import { traceHash } from './hash.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, pathTooDeep } from './json-depth.js';
import { importTraceText, readTracesFromBytes, toTrace } from './load.js';
import type { Trace } from './model.js';

const DEPTHS = [5_000, 100_000];

/** JSON text of arrays (or objects) nested `depth` deep around a string. */
function nestedText(depth: number, kind: 'arrays' | 'objects'): string {
  return kind === 'arrays'
    ? `${'['.repeat(depth)}"x"${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`;
}

/** An OTLP AnyValue nested `depth` JSON levels deep (arrayValue within arrayValue). */
function nestedAnyValue(depth: number): string {
  const levels = Math.ceil(depth / 3);
  return `${'{"arrayValue":{"values":['.repeat(levels)}{"stringValue":"x"}${']}}'.repeat(levels)}`;
}

const MARK = '\u0000nested\u0000';

/**
 * A fixture's text with the value at `path` replaced by `value` (JSON text); in a JSON Lines
 * fixture the path starts with the record's index.
 */
function withValue(fixture: string, path: (string | number)[], value: string): string {
  const text = readFileSync(join(FIXTURES, 'formats', fixture), 'utf8');
  const lines = fixture.endsWith('.jsonl');
  const document: unknown = lines
    ? text
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as unknown)
    : JSON.parse(text);
  let parent = document as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path.at(-1)!] = MARK;
  const written =
    lines && Array.isArray(document)
      ? document.map((record) => JSON.stringify(record)).join('\n')
      : JSON.stringify(document);
  return written.replace(JSON.stringify(MARK), value);
}

/** Where a deep value goes in each format, and where the error must say it is. */
const PLACES: { fixture: string; path: (string | number)[]; position: string }[] = [
  {
    fixture: 'whowhen-algorithm-generated.json',
    path: ['history', 1, 'content'],
    position: 'history[1].content',
  },
  {
    fixture: 'messages-conversation.json',
    path: ['conversation', 1, 'content'],
    position: 'conversation[1].content',
  },
  {
    fixture: 'langfuse-trace-export.json',
    path: ['observations', 1, 'output'],
    position: 'observations[1].output',
  },
  {
    fixture: 'openai-agents-traces-ingest.json',
    path: ['data', 2, 'span_data', 'input'],
    position: 'data[2].span_data.input',
  },
  { fixture: 'langsmith-runs.json', path: ['runs', 1, 'outputs'], position: 'runs[1].outputs' },
  {
    fixture: 'smolagents-tool-calling.json',
    path: ['steps', 1, 'tool_calls', 0, 'function', 'arguments'],
    position: 'steps[1].tool_calls[0]',
  },
  { fixture: 'magentic-one-log.jsonl', path: [1, 'message'], position: 'line 2.message' },
  { fixture: 'crewai-events.jsonl', path: [3, 'tool_args'], position: 'line 4.tool_args' },
];

/** Asserts that importing `text` fails with one TraceFormatError naming `file` and `position`. */
async function assertRefused(text: string, file: string, position: string): Promise<void> {
  await assert.rejects(importTraceText(text, file), (error: unknown) => {
    assert.ok(error instanceof TraceFormatError, `got ${String(error)}`);
    assert.ok(
      error.message.startsWith(`${file} at ${position}`),
      `names the file and where: ${error.message.slice(0, 200)}`,
    );
    assert.match(error.message, /arrays and objects nest more than 256 levels deep here/);
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
}

describe('nesting', () => {
  for (const depth of DEPTHS) {
    for (const kind of ['arrays', 'objects'] as const) {
      it(`refuses a step nested ${depth.toLocaleString('en')} deep (${kind}) in each format, saying where`, async () => {
        const nested = nestedText(depth, kind);
        for (const { fixture, path, position } of PLACES)
          await assertRefused(withValue(fixture, path, nested), fixture, position);
      });
    }

    it(`refuses an OTLP attribute nested ${depth.toLocaleString('en')} deep, saying where`, async () => {
      const text = withValue(
        'otlp-genai-semconv.json',
        ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 3, 'attributes', 4, 'value'],
        nestedAnyValue(depth),
      );
      await assertRefused(
        text,
        'otlp.json',
        'resourceSpans[0].scopeSpans[0].spans[3].attributes[4]…',
      );
    });

    it(`says where text nested ${depth.toLocaleString('en')} deep and cut off is refused`, async () => {
      await assertRefused(
        `{"history": ${'['.repeat(depth)}`,
        'cut.json',
        // The document's object is the first level: the 256th `[` is one too many.
        `line 1, column ${12 + MAX_JSON_DEPTH}`,
      );
    });
  }

  it('keeps JSON text nested too deep inside a field as text', async () => {
    const deepJson = nestedText(5_000, 'arrays');
    const text = withValue(
      'otlp-genai-semconv.json',
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 3, 'attributes', 5],
      JSON.stringify({ key: 'gen_ai.tool.call.result', value: { stringValue: deepJson } }),
    );
    const [trace] = await importTraceText(text, 'otlp.json');
    assert.ok(trace!.steps.some((step) => step.content.includes(deepJson)));
  });

  it('refuses a value nested too deep given to the library, and a broken line of an upload', async () => {
    const history = [
      {
        role: 'assistant',
        name: 'Solver',
        content: JSON.parse(nestedText(5_000, 'arrays')) as unknown,
      },
    ];
    await assert.rejects(
      toTrace({ history }),
      /^TraceFormatError: trace at history\[0\]\.content\[0\]\[0\]\[0\]\[0\]\[0\]…: arrays and objects nest/,
    );
    const upload = `{"role": "user", "name": "human", "content": "Hi"}\n{"role": "assistant", "name": "A", "content": ${nestedText(100_000, 'objects')}}\n`;
    const read = await readTracesFromBytes(new TextEncoder().encode(upload), 'upload.jsonl');
    assert.equal(read.traces.length, 1);
    assert.match(
      read.skipped[0]!.message,
      /^upload\.jsonl at line 2\.content\.a\.a\.a\.a\.a\.a\.a…: arrays and objects nest/,
    );
  });

  it('reads a trace nested up to the limit through every stage that recurses', async () => {
    // LangSmith runs nested in child_runs (two levels a run) and an OTLP value within values.
    const runs = Math.floor(MAX_JSON_DEPTH / 2) - 2;
    const tree = `${'{"id": "r", "name": "planner", "run_type": "chain", "inputs": {"input": "Find 6 x 7."}, "outputs": {"output": "Working on it."}, "child_runs": ['.repeat(runs)}{"id": "leaf", "name": "calculator", "run_type": "tool", "inputs": {"input": "6 * 7"}, "outputs": {"output": "42"}}${']}'.repeat(runs)}`;
    const otlp = withValue(
      'otlp-genai-semconv.json',
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 3, 'attributes', 4, 'value'],
      nestedAnyValue(MAX_JSON_DEPTH - 12),
    );
    const traces: Trace[] = [
      ...(await importTraceText(tree, 'tree.json')),
      ...(await importTraceText(otlp, 'otlp.json')),
    ];
    for (const trace of traces) {
      assert.ok(trace.steps.length > 0);
      assert.match(traceHash(trace), /^[0-9a-f]{32}$/);
      assert.ok(JSON.stringify(trace, null, 2).length > 0);
      assert.ok(JSON.stringify(toMessagesDocument(trace), null, 2).length > 0);
    }
  });

  it('measures depth without recursion and finds the first value too deep in document order', () => {
    const deep = JSON.parse(
      `[1, {"a": ${nestedText(100_000, 'arrays')}}, ${nestedText(300, 'objects')}]`,
    ) as unknown;
    assert.equal(nestsDeeperThan(deep), true);
    assert.deepEqual(pathTooDeep(deep).slice(0, 4), [1, 'a', 0, 0]);
    assert.equal(nestsDeeperThan(JSON.parse(nestedText(MAX_JSON_DEPTH - 1, 'objects'))), false);
    assert.equal(nestsDeeperThan('text'), false);
  });
});
