/**
 * VoltAgent's spans (voltagent.ts) beyond the golden corpus: the run's session is the outermost
 * agent's `conversation.id` (what an app passes as `conversationId`), never a sub-agent's, which
 * VoltAgent draws at random for each delegation. Read from the recorded fixture.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../../test/paths.js';
import { importRawInput } from '../load.js';

interface Span {
  name: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

const recorded = () =>
  JSON.parse(readFileSync(join(FIXTURES, 'formats', 'voltagent-observability.json'), 'utf8')) as {
    resourceSpans: { scopeSpans: { spans: Span[] }[] }[];
  };

const spansOf = (document: ReturnType<typeof recorded>) =>
  document.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));

const read = async (document: unknown) =>
  (await importRawInput({ kind: 'json', value: document }, { file: 'run.json', id: 'run' }))[0]!;

describe('VoltAgent spans', () => {
  it("take the session from the outermost agent's conversation id, not a sub-agent's", async () => {
    const document = recorded();
    const spans = spansOf(document);
    assert.ok(
      spans.some((span) => span.attributes.some((each) => each.key === 'conversation.id')),
      'the sub-agents carry conversation ids of their own',
    );
    assert.equal((await read(document)).metadata?.session, undefined);
    const coordinator = spans.find((span) => span.name === 'Coordinator')!;
    coordinator.attributes.push({ key: 'conversation.id', value: { stringValue: 'order-42' } });
    assert.equal((await read(document)).metadata?.session, 'order-42');
  });
});
