/**
 * The small tasks the example team solves, with the answers the check compares against. Arithmetic
 * tasks ask for one expression's value; coding tasks ask for a loop's result.
 */
export interface Task {
  id: string;
  prompt: string;
  /** The right answer, as the check compares it. */
  answer: string;
}

export const TASKS: Task[] = [
  { id: 'arith-1', prompt: 'What is 17 * 23 + 5?', answer: '396' },
  { id: 'arith-2', prompt: 'What is (120 - 45) / 5 * 3?', answer: '45' },
  { id: 'arith-3', prompt: 'What is 2 ** 10 - 24 * 7?', answer: '856' },
  {
    id: 'code-1',
    prompt: 'Write code that returns the sum of the squares of the numbers from 1 to 10.',
    answer: '385',
  },
  {
    id: 'code-2',
    prompt: 'Write code that returns the product of the numbers from 1 to 6.',
    answer: '720',
  },
  {
    id: 'code-3',
    prompt: 'Write code that returns the sum of the cubes of the numbers from 2 to 5.',
    answer: '224',
  },
];

/** The task with this id, or an error listing the ids. */
export function taskById(id: string): Task {
  const task = TASKS.find((item) => item.id === id);
  if (!task)
    throw new Error(
      `unknown task "${id}"; choose one of: ${TASKS.map((item) => item.id).join(', ')}`,
    );
  return task;
}
