/**
 * The state part of a spectrum unit: a step's content with its volatile parts masked (numbers, ids,
 * hashes, paths, links, quoted values change from run to run of one task) and reduced to its key
 * terms, the words that set the step apart from the other steps of the runs read (tf-idf).
 */

/** Words too common to say what a step acts on. */
const STOPWORDS = new Set(
  `the a an and or but if then else of to in on at by for with from as is are was were be been being
this that these those it its it's we you they he she i me my our your their them us will would can
could should shall may might must do does did done have has had not no yes so than too very just
also any all each some such more most other into over under about after before again there here
what which who whom whose when where why how let let's please now need use using used make sure
get got one two only same like well okay ok sure thanks thank provided based following given
step steps task let's here's i'll we'll i'm we're you're don't can't won't`.split(/\s+/),
);

/** A number as a term: `#12.5` for `12.50`; long ones (ids, times) are not terms. */
function numberTerm(text: string): string {
  const digits = text.replace(/,/g, '');
  if (digits.replace('.', '').length > 6) return ' ';
  return ` #${Number(digits)} `;
}

/**
 * Replaces what differs between runs of one task by placeholders (links, paths, ids) and numbers
 * by number terms, which termsOf keeps only where they recur across runs.
 */
export function maskVolatile(text: string): string {
  return text
    .replace(/\bhttps?:\/\/\S+/gi, ' link ')
    .replace(/(?<![\w./-])(?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+/g, ' path ')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, ' id ')
    .replace(/\b(?=[a-z_]*\d)[0-9a-f_-]{8,}\b/gi, ' id ')
    .replace(/\d+(?:[.,]\d+)*/g, numberTerm);
}

/** Characters of a step read for its state: its opening says what it does and on what. */
const TEXT_READ = 2000;

/** The words and number terms of a masked text, lower-cased, without stopwords and short words. */
export function wordsOf(text: string): string[] {
  const words =
    maskVolatile(text.slice(0, TEXT_READ))
      .toLowerCase()
      .match(/#[\d.e+-]+|[a-z][a-z_']{2,}/g) ?? [];
  return words.filter((word) => !STOPWORDS.has(word));
}

/** True for a number term (`#12.5`). */
export const isNumberTerm = (term: string) => term.startsWith('#');

/** What a step's state is read from: its text, and terms it always keeps (tool-call shapes). */
export interface StepText {
  text: string;
  forced: string[];
}

/** A tool call's shape as a term: its name and arguments, numbers and white space squashed. */
export function callShape(name: string, args: string): string {
  const shape = args.replace(/\d+(?:\.\d+)?/g, '#').replace(/\s+/g, '');
  return `${name}(${shape.length > 60 ? '…' : shape})`;
}

/**
 * The key terms of every step of every run (`undefined` where a step is not read): at most `keep`
 * distinct terms per step by term frequency times inverse document frequency over all steps read,
 * ties by first appearance, plus the step's forced terms. A number is a term only where it recurs
 * in two runs or more: a price every run looks up is a fact of the task, a time or a count that
 * changes each run is not. Sorted, so that two steps' terms compare as sets.
 */
export function termsOf(
  runs: readonly (readonly (StepText | undefined)[])[],
  keep: number,
): (string[] | undefined)[][] {
  const words = runs.map((run) =>
    run.map((step) => (step === undefined ? undefined : wordsOf(step.text))),
  );
  const numberRuns = new Map<string, number>();
  for (const run of words) {
    const inRun = new Set(run.flatMap((step) => step ?? []).filter(isNumberTerm));
    for (const term of inRun) numberRuns.set(term, (numberRuns.get(term) ?? 0) + 1);
  }
  const kept = words.map((run) =>
    run.map((step) =>
      step?.filter((word) => !isNumberTerm(word) || (numberRuns.get(word) ?? 0) >= 2),
    ),
  );
  const documentFrequency = new Map<string, number>();
  let documents = 0;
  for (const run of kept)
    for (const step of run) {
      if (step === undefined) continue;
      documents += 1;
      for (const word of new Set(step))
        documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
  return kept.map((run, runIndex) =>
    run.map((step, stepIndex) => {
      if (step === undefined) return undefined;
      const frequency = new Map<string, number>();
      for (const word of step) frequency.set(word, (frequency.get(word) ?? 0) + 1);
      const weighted = [...frequency].map(([word, count], order) => ({
        word,
        order,
        weight:
          (1 + Math.log(count)) * Math.log((1 + documents) / (1 + documentFrequency.get(word)!)),
      }));
      weighted.sort((left, right) => right.weight - left.weight || left.order - right.order);
      const forced = runs[runIndex]![stepIndex]!.forced;
      return [
        ...new Set([...weighted.slice(0, keep).map((entry) => entry.word), ...forced]),
      ].sort();
    }),
  );
}
