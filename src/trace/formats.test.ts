/**
 * The golden corpus: every fixture under __fixtures__/formats imports to exactly its
 * `.golden.json` (regenerate on purpose with UPDATE_GOLDEN=1), and every malformed file under
 * __fixtures__/negative fails with a one-line TraceFormatError naming the file and the problem.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES, ROOT } from '../../test/paths.js';
import { TraceFormatError } from '../errors.js';
import { importTraceText, loadTraces } from './load.js';
import { readRawInput } from './read-input.js';
import { detectFormat, listFormats } from './registry.js';

const formatsFolder = join(FIXTURES, 'formats');
const negativeFolder = join(FIXTURES, 'negative');
const fixtures = readdirSync(formatsFolder)
  .filter((name) => !name.endsWith('.golden.json'))
  .sort();

/** What a fixture must import to: every format has at least one fixture. */
const EXPECTED_FORMAT: Record<string, string> = {
  'aegis-flat.jsonl': 'aegis',
  'aegis-release.json': 'aegis',
  'ai-sdk-telemetry.json': 'ai-sdk',
  'ag2-autogen02-groupchat.json': 'autogen',
  'ag2-autogen02-tool-calls.json': 'autogen',
  'canonical-trace.json': 'canonical',
  'collector-rows-clickhouse.json': 'collector-rows',
  'collector-rows-each-row.jsonl': 'collector-rows',
  'collector-rows-nested.json': 'collector-rows',
  'ag2-runtime-logging.db': 'ag2-sqlite',
  'autogen-core-events.jsonl': 'autogen',
  'autogen04-agentchat-taskresult.json': 'autogen',
  'crewai-events.jsonl': 'crewai',
  'crewai-output-log.json': 'crewai',
  'langfuse-trace-export.json': 'langfuse',
  'langsmith-runs.json': 'langgraph',
  'magentic-one-log.jsonl': 'magentic-one',
  'mad-mast-metagpt.json': 'messages',
  'messages-conversation.json': 'messages',
  'messages-history.json': 'messages',
  'messages-lines.jsonl': 'messages',
  'messages-logprobs.json': 'messages',
  'messages-with-bom.json': 'messages',
  'openai-agents-traces-ingest.json': 'openai-agents',
  'openinference-langgraph.json': 'openinference',
  'openinference-openai-agents.json': 'openinference',
  'openinference-otlp.json': 'openinference',
  'otel-events.json': 'otel',
  'otel-logprobs.json': 'otel',
  'otlp-genai-semconv.json': 'otel',
  'phoenix-rest-spans.json': 'openinference',
  'smolagents-memory-steps.json': 'smolagents',
  'smolagents-tool-calling.json': 'smolagents',
  'span-export-duplicate-span.json': 'collector-rows',
  'span-export-harness-only.json': 'collector-rows',
  'span-export-smolagents-code-agent.json': 'collector-rows',
  'span-export-smolagents-managed.json': 'collector-rows',
  'tau-bench-results.json': 'messages',
  'whowhen-algorithm-generated.json': 'who-and-when',
  'whowhen-hand-crafted-magentic-one.json': 'who-and-when',
  'whowhen-pro-run.json': 'who-and-when-pro',
  'whowhen-pro-runs.jsonl': 'who-and-when-pro',
  'voltagent-observability.json': 'voltagent',
};

describe('golden corpus', () => {
  it('has a fixture for every registered format', () => {
    const covered = new Set(Object.values(EXPECTED_FORMAT));
    for (const format of listFormats())
      assert.ok(covered.has(format.name), `no fixture for ${format.name}`);
  });

  for (const name of fixtures) {
    it(`reads ${name}`, async () => {
      const file = relative(ROOT, join(formatsFolder, name));
      const traces = await loadTraces(file);
      // A list of runs that no format reads whole is read item by item (import-input.ts).
      assert.equal(
        detectFormat(await readRawInput(file))?.name ??
          [...new Set(traces.map((trace) => trace.format))].join(', '),
        EXPECTED_FORMAT[name],
        'detected format',
      );
      const golden = join(formatsFolder, `${name}.golden.json`);
      const actual = JSON.parse(JSON.stringify(traces));
      if (process.env.UPDATE_GOLDEN === '1')
        writeFileSync(golden, `${JSON.stringify(actual, null, 2)}\n`);
      // A fixture without its golden file is a mistake, not a new baseline: write it on purpose.
      assert.ok(
        existsSync(golden),
        `${name} has no ${name}.golden.json; review the import and write it with UPDATE_GOLDEN=1`,
      );
      assert.deepEqual(actual, JSON.parse(readFileSync(golden, 'utf8')));
    });
  }
});

/** Each malformed file and the words its error must contain. */
const NEGATIVE: Record<string, RegExp> = {
  'aegis-missing-agent-name.jsonl': /\(aegis\) at line 1\.trajectory\[0\]\.agent_name/,
  'binary.json': /binary file/,
  // Span rows: the row without an id is named by its place; a map that is not one, by its column.
  'collector-rows-bad-attributes.jsonl':
    /\(collector-rows\) at line 2\.span_attributes: expected an attribute map: an object, or JSON text of one$/,
  'collector-rows-missing-span-id.json':
    /\(collector-rows\) at \[1\]: the row names no span id \(SpanId or span_id\)/,
  'collector-rows-no-convention.json':
    /\(collector-rows\) at \[0\]: no span of trace cc33 carries OpenInference .* or OTel GenAI/,
  // Nesting far deeper than real traces is refused where it is found, before anything recurses.
  'content-nested-too-deep.json':
    /at history\[1\]\.content\[0\]\[0\]\[0\]\[0\]\[0\]…: arrays and objects nest more than 256 levels deep here/,
  'content-null.json': /history\[0\]\.content: content is null/,
  'content-object.json': /history\[0\]\.content: content is an object/,
  'empty-file.json': /the file is empty/,
  'empty-history.json': /history is empty/,
  'jsonl-line-nested-too-deep.jsonl':
    /at line 2\.content\[0\]\[0\]\[0\]\[0\]\[0\]\[0\]\[0\]…: arrays and objects nest more than 256 levels/,
  'jsonl-truncated.jsonl': /line 2: the JSON ends too early/,
  'list-item-bad-content.jsonl':
    /\(who-and-when\) at line 2\.history\[1\]\.content: content is number/,
  'list-item-unread.jsonl': /at line 2: unrecognised trace format \(top-level keys: notes\)/,
  'list-of-numbers.json':
    /unrecognised trace format \(a list of 3 items\); faultline reads: canonical, who-and-when, .*messages/,
  'logs-dump.sql':
    /logs-dump\.sql: this is SQL text, not a trace; .*give that file, or load this text into one first \(sqlite3 logs\.db < .*logs-dump\.sql\)/,
  // A JSON Lines record is named by its line, counted from 1; a wrong type says what was found.
  'messages-lines-bad-name.jsonl': /\(messages\) at line 2\.name: expected string, found number$/,
  'missing-speaker.json': /history\[0\]: the message names no speaker/,
  'nested-too-deep-truncated.json':
    /at line 1, column 257: arrays and objects nest more than 256 levels/,
  'not-json.json': /invalid JSON/,
  'null.json': /unrecognised trace format \(null\)/,
  'otel-missing-span-id.json': /spans\[0\]\.spanId: missing spanId/,
  'otlp-attribute-nested-too-deep.json':
    /at resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[1\]…: arrays and objects nest more than 256 levels/,
  // A vendor's {trace_id, spans} export: the nested row is named by its place in the tree.
  'span-export-row-missing-span-id.json':
    /\(collector-rows\) at spans\[0\]\.child_spans\[1\]: the row names no span id \(SpanId or span_id\)/,
  'truncated.json': /the JSON ends too early/,
  'unknown-shape.json': /unrecognised trace format \(top-level keys: foo, bar\)/,
  'who-and-when-bad-content.json': /\(who-and-when\) at history\[1\]\.content: content is number/,
  // An agent's span alone (cut from a real export): no model call, tool run or reply to read.
  'voltagent-no-steps.json':
    /\(voltagent\) at resourceSpans: the one span is not a model call, tool run or reply: there are no steps to attribute/,
  'who-and-when-pro-step-out-of-range.json':
    /\(who-and-when-pro\) at ground_truth\.step: the labelled step 12 is no step of the trajectory: .* no index of its 7 entries/,
};

describe('malformed traces', () => {
  it('covers every negative fixture', () => {
    assert.deepEqual(readdirSync(negativeFolder).sort(), Object.keys(NEGATIVE).sort());
  });

  for (const [name, expected] of Object.entries(NEGATIVE)) {
    it(`rejects ${name} with one clear line`, async () => {
      const file = join(negativeFolder, name);
      await assert.rejects(loadTraces(file), (error: unknown) => {
        assert.ok(error instanceof TraceFormatError, `got ${String(error)}`);
        assert.ok(error.message.startsWith(file), 'names the file first');
        assert.match(error.message, expected);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
    });
  }

  it('lists the valid formats for an unknown --format', async () => {
    await assert.rejects(
      importTraceText('{}', 'x.json', { format: 'nope' }),
      /unknown format "nope"; choose one of: canonical, who-and-when/,
    );
  });
});

describe('times', () => {
  it('drops a step time beyond what a date can hold rather than failing the run', async () => {
    const memory = {
      agent_name: 'researcher',
      steps: [
        { task: 'Look it up.' },
        { step_number: 1, timing: { start_time: 1e20 }, model_output: 'Searching.' },
        { step_number: 2, timing: { start_time: 1777629600 }, model_output: 'Found it.' },
      ],
    };
    const [trace] = await importTraceText(JSON.stringify(memory), 'memory.json');
    assert.deepEqual(
      trace!.steps.map((step) => step.timestamp),
      [undefined, undefined, '2026-05-01T10:00:00.000Z'],
    );
  });
});
