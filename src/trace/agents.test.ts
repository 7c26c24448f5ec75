import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalAgentName, matchAgentName, roleOfSpeaker, sameAgent } from './agents.js';

describe('agent names', () => {
  it('folds Magentic-One speakers onto the agent', () => {
    assert.equal(canonicalAgentName('Orchestrator (thought)'), 'Orchestrator');
    assert.equal(canonicalAgentName('Orchestrator (-> WebSurfer)'), 'Orchestrator');
    assert.equal(canonicalAgentName('WebSurfer'), 'WebSurfer');
  });

  it('tells humans, tools and agents apart', () => {
    assert.equal(roleOfSpeaker('human'), 'human');
    assert.equal(roleOfSpeaker('Computer_terminal'), 'tool');
    assert.equal(roleOfSpeaker('ComputerTerminal'), 'tool');
    assert.equal(roleOfSpeaker('Verification_Expert'), 'agent');
    assert.equal(roleOfSpeaker('Orchestrator (thought)'), 'agent');
    assert.equal(roleOfSpeaker('chat_manager'), 'system', "AG2's group chat manager");
  });

  it("maps a label's spelling onto the trace's", () => {
    assert.equal(matchAgentName('Websurfer', ['Orchestrator', 'WebSurfer']), 'WebSurfer');
    assert.equal(matchAgentName('Orchestrator (thought)', ['Orchestrator']), 'Orchestrator');
    assert.ok(sameAgent('web_surfer', 'WebSurfer'));
    assert.ok(!sameAgent('WebSurfer', 'FileSurfer'));
  });
});
