/** The start page: what faultline does, and the examples to begin with. */
import type { ExamplesResponse, MethodsResponse } from '../../src/server/api-types.js';
import { api } from './api.js';
import { element } from './dom.js';

type Example = ExamplesResponse['examples'][number];

/** Fills the conversation and result panels; `load` is called with the example picked. */
export function renderStart(
  conversation: HTMLElement,
  resultPanel: HTMLElement,
  examples: readonly Example[],
  load: (example: Example) => void,
): void {
  const list = element('ul', { class: 'examples' });
  for (const example of examples) {
    const button = element('button', { type: 'button' }, example.title);
    button.addEventListener('click', () => load(example));
    list.append(element('li', {}, button, element('span', { class: 'meta' }, example.description)));
  }
  resultPanel.append(
    element('h2', {}, 'Attribution'),
    element(
      'p',
      { class: 'meta' },
      'Load a run that went wrong, then press Attribute: faultline names the agent and the step that caused the failure, and what kind of failure it was.',
    ),
  );
  conversation.append(
    element('h2', {}, 'Start with an example'),
    element(
      'p',
      { class: 'meta' },
      'Or drop your own run (any supported format, several files at once, AG2 logs.db included).',
    ),
    list,
  );
}

/**
 * Listens to the ways a trace comes in: the paste box's Load button, the file input and the
 * drop zone; `upload` gets the files (the paste as one named "pasted trace").
 */
export function listenForUploads(
  byId: (id: string) => HTMLElement,
  upload: (files: { body: string | Blob; name: string }[]) => void,
  say: (text: string, kind: 'info' | 'error') => void,
): void {
  byId('load').addEventListener('click', () => {
    const text = (byId('paste') as HTMLTextAreaElement).value;
    if (text.trim()) upload([{ body: text, name: 'pasted trace' }]);
    else say('Paste a trace first.', 'error');
  });
  const takeFiles = (files: FileList | null | undefined) => {
    const list = [...(files ?? [])].map((file) => ({ body: file as Blob, name: file.name }));
    if (list.length > 0) upload(list);
  };
  byId('file').addEventListener('change', (event) =>
    takeFiles((event.target as HTMLInputElement).files),
  );
  const drop = byId('drop');
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    takeFiles(event.dataTransfer?.files);
  });
}

/**
 * The method and format lists. A method that compares with a passing run (diverge) is not offered
 * for one run alone: the diff view ("Compare with…") is where two runs meet. One that compares with
 * the other runs of a task (spectrum, combined) is listed, hidden until a recorded run of a task
 * is open (`offerTaskMethods`). An option says whether its method asks an LLM (`data-llm`).
 */
export function fillChoices(
  methodSelect: HTMLSelectElement,
  formatSelect: HTMLSelectElement,
  { methods, formats }: MethodsResponse,
): void {
  for (const method of methods.filter((entry) => !entry.needsReference)) {
    const option = element(
      'option',
      { value: method.name, title: method.description },
      method.name,
    ) as HTMLOptionElement;
    if (method.needsModel) option.dataset.llm = '';
    if (method.needsRuns) option.dataset.needsRuns = method.description;
    methodSelect.append(option);
  }
  offerTaskMethods(methodSelect, null);
  for (const format of formats)
    formatSelect.append(
      element('option', { value: format.name, title: format.description }, format.name),
    );
}

/** A trace the server stored from an upload. */
interface Loaded {
  id: string;
  name: string;
  steps: number;
}

/** Uploads each file; the traces stored, and what could not be read (file by file). */
export async function uploadFiles(
  files: { body: string | Blob; name: string }[],
  format: string,
  message: (error: unknown) => string,
): Promise<{ loaded: Loaded[]; failed: string[] }> {
  const loaded: Loaded[] = [];
  const failed: string[] = [];
  for (const file of files) {
    try {
      const { traces, skipped } = await api.upload(file.body, file.name, format);
      loaded.push(...traces);
      failed.push(...skipped);
    } catch (error) {
      failed.push(message(error));
    }
  }
  return { loaded, failed };
}

/** What the status line says after an upload that stored some traces. */
export function loadedText(loaded: readonly Loaded[], failed: readonly string[]): string {
  const first = loaded[0]!;
  const more =
    loaded.length > 1 ? ` (${loaded.length} traces loaded: see History for the others)` : '';
  const problems = failed.length > 0 ? ` Not loaded: ${failed.join(' · ')}` : '';
  return `Loaded ${first.name}: ${first.steps} steps${more}.${problems}`;
}

/**
 * Shows the methods that read a task's runs (`data-needs-runs`: their description) while the run
 * open is a recorded run of a `task` with other runs in the store (the task named in their hint),
 * hides them otherwise (`null`); a hidden method chosen falls back to the first one offered.
 */
export function offerTaskMethods(methodSelect: HTMLSelectElement, task: string | null): void {
  for (const option of methodSelect.options) {
    const description = option.dataset.needsRuns;
    if (description === undefined) continue;
    option.hidden = option.disabled = task === null;
    option.title = task === null ? description : `${description} (with the runs of task ${task})`;
  }
  if (methodSelect.selectedOptions[0]?.disabled)
    methodSelect.selectedIndex = [...methodSelect.options].findIndex((option) => !option.disabled);
}

/** True when the method chosen asks an LLM (a model to enter). */
export const asksModel = (methodSelect: HTMLSelectElement): boolean =>
  methodSelect.selectedOptions[0]?.dataset.llm !== undefined;
