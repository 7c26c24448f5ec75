/** The MAST taxonomy as data: codes as sources write them, names for every output. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAST_MODES, mastCode, mastLabel, mastMode } from './mast.js';

describe('MAST taxonomy', () => {
  it('has the 14 modes in three categories, each with a definition and a fix', () => {
    assert.equal(MAST_MODES.length, 14);
    assert.deepEqual([...new Set(MAST_MODES.map((mode) => mode.code[0]))], ['1', '2', '3']);
    for (const mode of MAST_MODES) assert.ok(mode.definition.length > 20 && mode.fix.length > 20);
  });

  it('reads codes as AEGIS and MAD write them, and nothing else', () => {
    assert.equal(mastCode('FM-2.3'), '2.3');
    assert.equal(mastCode(' 3.3 '), '3.3');
    assert.equal(mastCode('4.1'), undefined);
    assert.equal(mastMode('FM-2.6')?.name, 'Reasoning-action mismatch');
    assert.equal(mastLabel('1.3'), '1.3 Step repetition');
    assert.equal(mastLabel('other'), 'other');
  });
});
