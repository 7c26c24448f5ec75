/**
 * Server messages are written for the command line; on the page, flags become the controls that do
 * the same thing.
 */
const REWRITES: [RegExp, string][] = [
  [/\(force one with --format NAME\)/g, '(choose one under “Format”)'],
  [/add --model provider:model/g, 'enter a model as provider:model'],
  [/use --method offline, which needs no key/g, 'choose the offline method, which needs no key'],
  [/--method offline needs none/g, 'the offline method needs none'],
  [/\(raise --timeout\)/g, '(the server’s time limit: start it with a longer --timeout)'],
  [/--base-url/g, 'a base URL (the server’s --base-url)'],
];

/** A message fit for the page. */
export function forPage(message: string): string {
  return REWRITES.reduce(
    (text, [pattern, replacement]) => text.replace(pattern, replacement),
    message,
  );
}
