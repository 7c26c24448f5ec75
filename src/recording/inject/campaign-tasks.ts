/**
 * The tasks of an injection campaign: the tasks file read (JSON Lines, one task per line) and the
 * run and check command lines filled in with a task.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../../errors.js';
import { tidyRunId } from '../record/identify.js';

/** One task of the tasks file: a JSON value (an object with an `id`, usually). */
export interface CampaignTask {
  id: string;
  /** The line as written in the tasks file. */
  json: string;
  value: unknown;
}

/** Reads a tasks file: JSON Lines, one task per line (an object with `id`, or any JSON value). */
export function readTasks(file: string): CampaignTask[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(
      `${file}: cannot read the tasks (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const tasks: CampaignTask[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UserError(`${file}:${index + 1}: not JSON; write one task per line as JSON`);
    }
    const named =
      value !== null && typeof value === 'object' && 'id' in value ? String(value.id) : undefined;
    const id = tidyRunId(named ?? `task-${tasks.length + 1}`) ?? `task-${tasks.length + 1}`;
    if (tasks.some((task) => task.id === id))
      throw new UserError(`${file}:${index + 1}: a second task with the id "${id}"`);
    tasks.push({ id, json: line.trim(), value });
  });
  if (tasks.length === 0) throw new UserError(`${file}: no tasks (write one JSON task per line)`);
  return tasks;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A command line with the task filled in: `{task}` is the task's JSON (shell-quoted), `{work}` the
 * run's own folder, `{name}` any top-level string or number field of the task (`{id}`).
 */
export function fillCommand(command: string, task: CampaignTask, work: string): string {
  return command.replace(/\{([A-Za-z_][\w-]*)\}/g, (whole, name: string) => {
    if (name === 'task') return shellQuote(task.json);
    if (name === 'work') return shellQuote(work);
    if (name === 'id') return shellQuote(task.id);
    const field =
      task.value !== null && typeof task.value === 'object'
        ? (task.value as Record<string, unknown>)[name]
        : undefined;
    return typeof field === 'string' || typeof field === 'number'
      ? shellQuote(String(field))
      : whole;
  });
}
