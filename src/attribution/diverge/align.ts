/**
 * Aligns two runs step by step: a global alignment (Needleman-Wunsch) whose cost of pairing two
 * steps is low for the same agent and role and for similar words (a 4-bit MinHash estimate of
 * word-set Jaccard: 16 values in 64 bits, compared in a few operations per pair), and whose gaps are inserted or missing steps. The runs' common opening and ending,
 * step for step alike, are paired first without the table. What is left is aligned in full up to
 * MAX_CELLS pairs; past that, within a band around the diagonal wide enough for the difference in
 * length (a band of MAX_CELLS pairs in all), so memory and time stay linear in the runs' length.
 */

/** A step as the alignment sees it. */
export interface AlignStep {
  /** Small integer per agent (the same agent has the same number in both runs). */
  agent: number;
  /** Small integer per role. */
  role: number;
  /** The step's text as compared for being alike (squashed, ids left out). */
  text: string;
  /** 4-bit MinHash signature of its words: SIGNATURE_SIZE values packed in two 32-bit words. */
  signature: Uint32Array;
}

/** Values in a MinHash signature: similarity is counted in sixteenths. */
export const SIGNATURE_SIZE = 16;
/** Pairs scored in full before the alignment keeps to a band (2,000 × 2,000 steps). */
export const MAX_CELLS = 4_000_000;

/** Costs in sixteenths: a gap costs one whole step; pairing costs by agent and by words. */
const GAP = SIGNATURE_SIZE;
/** Another agent of the same role: pairing it is dearer than most rewordings. */
const OTHER_AGENT = 10;
/** Another role: pairing costs more than a gap on each side unless the words are nearly alike. */
const OTHER_ROLE = 19;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a hash of a word. */
function hashWord(word: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < word.length; index += 1) {
    hash ^= word.charCodeAt(index);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** A 32-bit mix (murmur3's finaliser) of a hash with a seed. */
function mix(hash: number, seed: number): number {
  let value = (hash ^ seed) >>> 0;
  value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
  value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
  return (value ^ (value >>> 16)) >>> 0;
}

const SEEDS = Array.from({ length: SIGNATURE_SIZE }, (_, index) => mix(index + 1, 0x9e3779b9));

/**
 * The 4-bit MinHash signature of a set of words: the lowest 4 bits of each of SIGNATURE_SIZE
 * minimum hashes, packed eight to a 32-bit word. Two unrelated steps share one value in 16 by
 * chance, which only raises every pairing's cost alike.
 */
export function signatureOf(words: readonly string[]): Uint32Array {
  const minimums = new Uint32Array(SIGNATURE_SIZE).fill(0xffffffff);
  for (const word of new Set(words)) {
    const hash = hashWord(word);
    for (let slot = 0; slot < SIGNATURE_SIZE; slot += 1) {
      const value = mix(hash, SEEDS[slot]!);
      if (value < minimums[slot]!) minimums[slot] = value;
    }
  }
  const packed = new Uint32Array(2);
  for (let slot = 0; slot < SIGNATURE_SIZE; slot += 1)
    packed[slot >> 3] = (packed[slot >> 3]! | ((minimums[slot]! & 0xf) << ((slot & 7) * 4))) >>> 0;
  return packed;
}

/** Of the eight 4-bit values in two packed words, how many are equal. */
function equalNibbles(left: number, right: number): number {
  // A nibble of the XOR is zero where the values are equal: fold each nibble onto its low bit,
  // then count the nibbles that are not zero.
  let bits = (left ^ right) >>> 0;
  bits |= bits >>> 1;
  bits |= bits >>> 2;
  bits &= 0x11111111;
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  bits = (bits + (bits >>> 4)) & 0x0f0f0f0f;
  return 8 - (Math.imul(bits, 0x01010101) >>> 24);
}

/**
 * Steps laid out in typed arrays for the table's inner loop: agents, roles, a number per distinct
 * text, and every signature one after the other.
 */
interface PackedSteps {
  agents: Int32Array;
  roles: Int32Array;
  texts: Int32Array;
  signatures: Uint32Array;
}

function pack(steps: readonly AlignStep[], textIds: Map<string, number>): PackedSteps {
  const packed: PackedSteps = {
    agents: Int32Array.from(steps, (step) => step.agent),
    roles: Int32Array.from(steps, (step) => step.role),
    texts: new Int32Array(steps.length),
    signatures: new Uint32Array(steps.length * 2),
  };
  steps.forEach((step, index) => {
    let id = textIds.get(step.text);
    if (id === undefined) {
      id = textIds.size;
      textIds.set(step.text, id);
    }
    packed.texts[index] = id;
    packed.signatures.set(step.signature, index * 2);
  });
  return packed;
}

/** Cost of pairing step `left` of one run with step `right` of the other, in sixteenths. */
function pairCost(one: PackedSteps, left: number, other: PackedSteps, right: number): number {
  const agentCost =
    one.roles[left] !== other.roles[right]
      ? OTHER_ROLE
      : one.agents[left] !== other.agents[right]
        ? OTHER_AGENT
        : 0;
  if (one.texts[left] === other.texts[right]) return agentCost;
  const shared =
    equalNibbles(one.signatures[left * 2]!, other.signatures[right * 2]!) +
    equalNibbles(one.signatures[left * 2 + 1]!, other.signatures[right * 2 + 1]!);
  return agentCost + SIGNATURE_SIZE - shared;
}

/** Steps alike for the common opening and ending: same agent, role and text. */
const alike = (left: AlignStep, right: AlignStep) =>
  left.agent === right.agent && left.role === right.role && left.text === right.text;

/** The alignment: pairs of step positions (null on the side that has no step), in order. */
export interface Alignment {
  pairs: [number | null, number | null][];
  /** True when the middle was aligned within a band rather than in full. */
  banded: boolean;
}

const DIAGONAL = 1;
const FAILED_ONLY = 2;
const PASSED_ONLY = 3;

/**
 * Aligns `failed` with `passed`. Where pairing and a gap cost the same, the gap is taken, so an
 * inserted copy of a step is the later one (the repeat), not the original.
 */
export function align(
  failed: readonly AlignStep[],
  passed: readonly AlignStep[],
  maxCells = MAX_CELLS,
): Alignment {
  let start = 0;
  while (start < failed.length && start < passed.length && alike(failed[start]!, passed[start]!))
    start += 1;
  let endFailed = failed.length;
  let endPassed = passed.length;
  while (
    endFailed > start &&
    endPassed > start &&
    alike(failed[endFailed - 1]!, passed[endPassed - 1]!)
  ) {
    endFailed -= 1;
    endPassed -= 1;
  }
  const pairs: [number | null, number | null][] = [];
  for (let index = 0; index < start; index += 1) pairs.push([index, index]);
  const middle = alignMiddle(
    failed.slice(start, endFailed),
    passed.slice(start, endPassed),
    maxCells,
  );
  for (const [left, right] of middle.pairs)
    pairs.push([left === null ? null : left + start, right === null ? null : right + start]);
  for (let offset = 0; offset < failed.length - endFailed; offset += 1)
    pairs.push([endFailed + offset, endPassed + offset]);
  laterGaps(pairs, failed, passed);
  return { pairs, banded: middle.banded };
}

/**
 * Moves each gap past the steps alike to the one it leaves out, so that of a step and its copy
 * the copy is the one inserted (or missing): `A B B C` against `A B C` inserts the second B, also
 * where the common ending paired the second B first.
 */
function laterGaps(
  pairs: [number | null, number | null][],
  failed: readonly AlignStep[],
  passed: readonly AlignStep[],
): void {
  for (let at = 0; at + 1 < pairs.length; at += 1) {
    const [left, right] = pairs[at]!;
    const [nextLeft, nextRight] = pairs[at + 1]!;
    if (nextLeft === null || nextRight === null) continue;
    if (right === null && left !== null && alike(failed[left]!, failed[nextLeft]!)) {
      pairs[at] = [left, nextRight];
      pairs[at + 1] = [nextLeft, null];
    } else if (left === null && right !== null && alike(passed[right]!, passed[nextRight]!)) {
      pairs[at] = [nextLeft, right];
      pairs[at + 1] = [null, nextRight];
    }
  }
}

/** Needleman-Wunsch over the middle, in full or within a band. */
function alignMiddle(
  failed: readonly AlignStep[],
  passed: readonly AlignStep[],
  maxCells: number,
): Alignment {
  const rows = failed.length;
  const columns = passed.length;
  const textIds = new Map<string, number>();
  const one = pack(failed, textIds);
  const other = pack(passed, textIds);
  if (rows === 0 || columns === 0)
    return {
      pairs: [
        ...failed.map((_, index): [number, null] => [index, null]),
        ...passed.map((_, index): [null, number] => [null, index]),
      ],
      banded: false,
    };
  // Each row keeps the columns within `halfWidth` of the diagonal from (0,0) to (rows,columns):
  // every column when the table fits; else as wide as the budget allows, and never narrower
  // than the slope, so that neighbouring rows' bands overlap and a path always exists.
  const full = rows * columns <= maxCells;
  const slope = Math.ceil(Math.max(rows, columns) / Math.min(rows, columns));
  const halfWidth = full ? columns : Math.max(slope + 2, Math.floor(maxCells / (rows + 1) / 2));
  const banded = !full && halfWidth < columns;
  const lowOf = (row: number) => Math.max(0, Math.round((row * columns) / rows) - halfWidth);
  const highOf = (row: number) => Math.min(columns, Math.round((row * columns) / rows) + halfWidth);

  const offsets = new Int32Array(rows + 2);
  for (let row = 0; row <= rows; row += 1)
    offsets[row + 1] = offsets[row]! + highOf(row) - lowOf(row) + 1;
  const moves = new Uint8Array(offsets[rows + 1]!);
  const unreachable = Number.MAX_SAFE_INTEGER;
  let previous = new Float64Array(columns + 1).fill(unreachable);
  let current = new Float64Array(columns + 1).fill(unreachable);
  for (let column = lowOf(0); column <= highOf(0); column += 1) {
    previous[column] = column * GAP;
    moves[offsets[0]! + column - lowOf(0)] = PASSED_ONLY;
  }
  for (let row = 1; row <= rows; row += 1) {
    const low = lowOf(row);
    const high = highOf(row);
    // `current` still holds the row before the previous one: only that row's band was written.
    if (row >= 2) current.fill(unreachable, lowOf(row - 2), highOf(row - 2) + 1);
    if (low > 0) current[low - 1] = unreachable;
    for (let column = low; column <= high; column += 1) {
      // Ties prefer the gap, and the failed run's own step first.
      let best = previous[column]! + GAP;
      let move = FAILED_ONLY;
      if (column > 0) {
        const left = current[column - 1]! + GAP;
        if (left < best) {
          best = left;
          move = PASSED_ONLY;
        }
        const diagonal = previous[column - 1]! + pairCost(one, row - 1, other, column - 1);
        if (diagonal < best) {
          best = diagonal;
          move = DIAGONAL;
        }
      }
      current[column] = best;
      moves[offsets[row]! + column - low] = move;
    }
    [previous, current] = [current, previous];
  }

  const pairs: [number | null, number | null][] = [];
  let row = rows;
  let column = columns;
  while (row > 0 || column > 0) {
    const move = row === 0 ? PASSED_ONLY : moves[offsets[row]! + column - lowOf(row)]!;
    if (move === DIAGONAL) {
      pairs.push([row - 1, column - 1]);
      row -= 1;
      column -= 1;
    } else if (move === FAILED_ONLY) {
      pairs.push([row - 1, null]);
      row -= 1;
    } else {
      pairs.push([null, column - 1]);
      column -= 1;
    }
  }
  return { pairs: pairs.reverse(), banded };
}
