/**
 * What only one speaker writes: for each agent, the share of its distinct numbers and of its
 * words that no other speaker (agent or tool) and not the task writes anywhere in the run. An
 * agent that disagrees with the rest of the team, or makes things up, writes its own; held out one
 * system at a time, this is among the few signals that mean the same in every system
 * (docs/MODEL.md).
 */
import type { Trace } from '../../../trace/model.js';
import type { RunFacts } from './run-facts.js';
import { hashWord, WordSet } from './tokens.js';

/** An agent's shares of numbers and of words that only it writes (0 when it writes none). */
export interface UnsharedShares {
  numbers: number;
  words: number;
}

/** Writers are told apart by one bit each; teams larger than this share bits (a rare blur). */
const WRITER_BITS = 30;
const TASK = 1 << WRITER_BITS;

/** Per writer bit: how many distinct items its steps hold, and how many of those only it holds. */
interface OwnCounts {
  own: Int32Array;
  distinct: Int32Array;
}

/**
 * The own and distinct counts of every writer bit, for items given as non-negative 30-bit integer
 * keys (word hashes; numbers hashed the same way). Each item's writers are a bitmask in an
 * open-addressing table: this reads every word of the run, and typed arrays are several times
 * faster than a Map here.
 */
function ownCounts(sets: readonly WordSet[], bits: readonly number[], task: WordSet): OwnCounts {
  const total = sets.reduce((sum, set) => sum + set.size, task.size);
  const capacity = 1 << Math.ceil(Math.log2(2 * total + 2));
  const keys = new Int32Array(capacity).fill(EMPTY);
  const masks = new Int32Array(capacity);
  const shift = 32 - Math.log2(capacity);
  const add = (key: number, bit: number) => {
    let slot = Math.imul(key, SPREAD) >>> shift;
    while (keys[slot] !== EMPTY && keys[slot] !== key) slot = (slot + 1) & (capacity - 1);
    keys[slot] = key;
    masks[slot]! |= bit;
  };
  for (let at = 0; at < task.size; at += 1) add(task.wordAt(at), TASK);
  sets.forEach((set, index) => {
    const bit = 1 << bits[index]!;
    for (let at = 0; at < set.size; at += 1) add(set.wordAt(at), bit);
  });
  const own = new Int32Array(WRITER_BITS);
  const distinct = new Int32Array(WRITER_BITS);
  for (let slot = 0; slot < capacity; slot += 1) {
    if (keys[slot] === EMPTY) continue;
    const mask = masks[slot]!;
    const sole = (mask & (mask - 1)) === 0;
    // Each writer bit set, lowest first; the task's bit is no writer.
    for (let rest = mask & ~TASK; rest !== 0; rest &= rest - 1) {
      const bit = 31 - Math.clz32(rest & -rest);
      distinct[bit]! += 1;
      if (sole) own[bit]! += 1;
    }
  }
  return { own, distinct };
}

const EMPTY = -1;
/** Fibonacci hashing: the top bits of key × 2^32/φ pick a well-spread slot. */
const SPREAD = 0x9e3779b1 | 0;

/** Each agent's unshared shares, from the facts of the run's steps. */
export function unsharedShares(trace: Trace, run: RunFacts): Map<string, UnsharedShares> {
  const bitOf = new Map<string, number>();
  const bits = trace.steps.map((step) => {
    let bit = bitOf.get(step.agent);
    if (bit === undefined) bitOf.set(step.agent, (bit = bitOf.size % WRITER_BITS));
    return bit;
  });
  const hashed = (numbers: ReadonlySet<string>) => {
    const set = new WordSet(numbers.size);
    for (const number of numbers) set.add(hashWord(number));
    return set;
  };
  const numbers = ownCounts(
    run.facts.map((fact) => hashed(fact.numbers)),
    bits,
    hashed(run.questionNumbers),
  );
  const words = ownCounts(
    run.facts.map((fact) => fact.words),
    bits,
    run.questionWords,
  );
  const share = (counts: OwnCounts, bit: number) =>
    counts.distinct[bit]! > 0 ? counts.own[bit]! / counts.distinct[bit]! : 0;
  const shares = new Map<string, UnsharedShares>();
  for (const [agent, bit] of bitOf)
    shares.set(agent, { numbers: share(numbers, bit), words: share(words, bit) });
  return shares;
}
