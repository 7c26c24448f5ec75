import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSse } from './sse.js';
import { anthropicMessages } from './anthropic-messages.js';
import { openAiChat } from './openai-chat.js';
import { openAiResponses } from './openai-responses.js';
import { wireApiFor, withoutVersion } from './registry.js';

const reply = {
  text: 'Let me check the weather.',
  toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }],
};

describe('each API reads back the replies it writes, streamed and whole', () => {
  for (const api of [openAiChat, openAiResponses, anthropicMessages]) {
    test(api.name, () => {
      for (const stream of [false, true]) {
        const written = api.writeReply(reply, {
          stream,
          model: 'm',
          includeUsage: true,
          inputTokens: 3,
          outputTokens: 4,
        });
        assert.equal(written.contentType, stream ? 'text/event-stream' : 'application/json');
        const read = api.readReply(written.body, stream);
        assert.equal(read.text, reply.text);
        assert.deepEqual(
          read.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as unknown]),
          [['weather', { city: 'Oslo' }]],
        );
        assert.equal(read.inputTokens, 3);
        assert.equal(read.outputTokens, 4);
        assert.equal(read.error, undefined);
      }
    });
  }
});

test('a stream cut short or an error body is read as an error', () => {
  const stream = anthropicMessages.writeReply(
    { text: 'partial', toolCalls: [] },
    { stream: true, model: 'm' },
  ).body;
  const cut = stream.slice(0, stream.indexOf('event: message_delta'));
  assert.match(anthropicMessages.readReply(cut, true).error ?? '', /without message_stop/);
  assert.equal(
    openAiChat.readReply('{"error":{"message":"Rate limit reached"}}', false).error,
    'Rate limit reached',
  );
  assert.equal(
    anthropicMessages.readReply(
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      false,
    ).error,
    'Overloaded',
  );
  assert.throws(() => openAiChat.readReply('{"choices": [', false));
});

test('requests: system prompt, speakers, tool calls and tool outputs, in each API', () => {
  const chat = openAiChat.readRequest({
    model: 'gpt',
    stream: true,
    stream_options: { include_usage: true },
    user: 'coder',
    messages: [
      { role: 'system', content: 'You are the coder.' },
      { role: 'user', name: 'Planner', content: [{ type: 'text', text: 'Plan: add.' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '3' },
    ],
  });
  assert.deepEqual(
    [
      chat.system,
      chat.stream,
      chat.includeUsage,
      chat.declaredAgent,
      chat.items.map((item) => [item.role, item.name, item.text]),
    ],
    [
      'You are the coder.',
      true,
      true,
      'coder',
      [
        ['user', 'Planner', 'Plan: add.'],
        ['assistant', undefined, ''],
        ['tool', undefined, '3'],
      ],
    ],
  );
  assert.deepEqual(chat.items[2]!.toolResult, { callId: 'c1' });

  const responses = openAiResponses.readRequest({
    instructions: 'Be brief.',
    input: [
      { role: 'developer', content: 'Use tools.' },
      { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'function_call', call_id: 'c2', name: 'lookup', arguments: '{"q":1}' },
      { type: 'function_call_output', call_id: 'c2', output: 'found' },
    ],
  });
  assert.equal(responses.system, 'Be brief.\n\nUse tools.');
  assert.deepEqual(
    responses.items.map((item) => [
      item.role,
      item.text,
      item.toolCalls?.[0]?.name,
      item.toolResult?.callId,
    ]),
    [
      ['user', 'hi', undefined, undefined],
      ['assistant', '', 'lookup', undefined],
      ['tool', 'found', undefined, 'c2'],
    ],
  );

  const anthropic = anthropicMessages.readRequest({
    system: [{ type: 'text', text: 'You are the reviewer.' }],
    metadata: { user_id: 'reviewer' },
    messages: [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'calc', input: { x: 1 } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [{ type: 'text', text: '2' }],
            is_error: true,
          },
        ],
      },
    ],
  });
  assert.equal(anthropic.declaredAgent, 'reviewer');
  assert.deepEqual(anthropic.items[0]!.toolCalls, [
    { id: 't1', name: 'calc', arguments: '{"x":1}' },
  ]);
  assert.deepEqual(
    [anthropic.items[1]!.text, anthropic.items[1]!.toolResult],
    ['2', { callId: 't1', isError: true }],
  );
});

test('paths with and without /v1 are the same call; SSE events are split as sent', () => {
  assert.equal(wireApiFor('/v1/messages'), anthropicMessages);
  assert.equal(wireApiFor('/messages'), anthropicMessages);
  assert.equal(wireApiFor('/v1/chat/completions/'), openAiChat);
  assert.equal(wireApiFor('/v1/models'), undefined);
  assert.equal(withoutVersion('/v1/responses'), '/responses');
  assert.deepEqual(parseSse('event: a\ndata: 1\ndata: 2\n\n: comment\ndata: 3\r\n\r\n'), [
    { event: 'a', data: '1\n2' },
    { data: '3' },
  ]);
});
