/**
 * Server-sent events, as the model APIs stream them: read a recorded stream back into its events,
 * and write events for a reply the proxy makes itself (replay). Only what the three APIs use is
 * handled: `event:` and `data:` fields, comments and blank-line separators.
 */

/** One event of a stream. */
export interface SseEvent {
  /** The `event:` field, when the stream names its events (Responses API, Anthropic). */
  event?: string;
  /** The `data:` lines joined with line breaks. */
  data: string;
}

/** The events of a whole stream's text, in order. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0)
      events.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
    event = undefined;
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  dispatch();
  return events;
}

/** The JSON payloads of a stream's events; `[DONE]` and unreadable payloads are skipped. */
export function sseJson(text: string): { event?: string; value: unknown }[] {
  const values: { event?: string; value: unknown }[] = [];
  for (const item of parseSse(text)) {
    if (item.data === '[DONE]') continue;
    try {
      values.push({
        ...(item.event !== undefined ? { event: item.event } : {}),
        value: JSON.parse(item.data),
      });
    } catch {
      // A payload that is not JSON is no part of these APIs' streams: nothing to read from it.
    }
  }
  return values;
}

/** One event as stream text. */
export function sseEvent(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event !== undefined ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}
