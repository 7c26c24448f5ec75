/**
 * What a recorded run keeps besides its steps, in the trace's `metadata.recording`: every model
 * call in the order it arrived, with its agent, a fingerprint of what it asked and the reply as
 * the upstream sent it (status, the headers that matter, the body's text), so a replay can answer
 * the same calls again. Keys and request headers are never kept.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Trace } from '../../trace/model.js';
import { FIRST_ISSUE } from '../../trace/format.js';
import { callsText } from '../../trace/step-text.js';
import type { UpstreamFailure } from '../proxy/forward.js';
import { AGENT_SOURCES, type AgentSource } from './identify.js';
import type { RequestView, WireName } from '../wire/types.js';

/** Version of the `metadata.recording` layout. */
export const RECORDING_VERSION = 1;

/** The trace format name of recorded runs. */
export const RECORDED_FORMAT = 'proxy';

/** A reply as the upstream sent it. */
export interface RecordedResponse {
  status: number;
  /** Only the headers that matter to a client (content type, Retry-After, request ids). */
  headers: Record<string, string>;
  /** The body's text (a stream's whole text); cut at the recording limit when `truncated`. */
  body: string;
  truncated?: boolean;
}

/** One model call of a run. */
export interface RecordedCall {
  /** Position of the call in the run, in order of arrival (0-based). */
  call: number;
  /** The trace step the call became. */
  step?: number;
  agent: string;
  agentSource: AgentSource;
  /** How many calls the same agent had made before this one: what replay matches on. */
  agentCall: number;
  api: WireName;
  streamed: boolean;
  model?: string;
  startedAt: string;
  durationMs?: number;
  /** A fingerprint of the conversation the call sent, and its last message (shortened). */
  request: RequestFingerprint;
  /**
   * Absent when no reply came: the upstream could not be reached or dropped the call, or the
   * client went away first.
   */
  response?: RecordedResponse;
  /** Why no reply came, where none did (proxy/forward.ts): replay answers the call the same way. */
  noReply?: UpstreamFailure;
  /** What went wrong, when something did (an HTTP error, a dropped connection, a bad body). */
  error?: string;
  /** In a replay: whether the call was answered from the recording, with the fix, or upstream. */
  answeredBy?: 'recording' | 'fix' | 'upstream';
}

/** How a replayed run came about. */
export interface ReplayOrigin {
  /** The run replayed. */
  of: string;
  step: number;
  agent: string;
  fix: { text: string; toolCalls?: { name: string; arguments: string }[] };
}

/** The recording part of a recorded run's metadata. */
export interface Recording {
  version: number;
  run: string;
  /** Where calls were forwarded (scheme, host and path only). */
  upstream?: string;
  startedAt: string;
  calls: RecordedCall[];
  replay?: ReplayOrigin;
}

const callSchema = z.object({
  call: z.number().int(),
  step: z.number().int().nullish(),
  agent: z.string(),
  agentSource: z.enum(AGENT_SOURCES),
  agentCall: z.number().int(),
  api: z.enum(['openai-chat', 'openai-responses', 'anthropic-messages']),
  streamed: z.boolean(),
  model: z.string().nullish(),
  startedAt: z.string(),
  durationMs: z.number().nullish(),
  request: z.object({
    hash: z.string(),
    last: z.string(),
    system: z.string().nullish(),
    role: z.string().nullish(),
    instructions: z.string().nullish(),
    items: z.array(z.string()).nullish(),
  }),
  response: z
    .object({
      status: z.number().int(),
      headers: z.record(z.string(), z.string()),
      body: z.string(),
      truncated: z.boolean().nullish(),
    })
    .nullish(),
  noReply: z.enum(['unreachable', 'dropped', 'client-gone']).nullish(),
  error: z.string().nullish(),
  answeredBy: z.enum(['recording', 'fix', 'upstream']).nullish(),
});

const recordingSchema = z.object({
  version: z.number().int(),
  run: z.string(),
  upstream: z.string().nullish(),
  startedAt: z.string(),
  calls: z.array(callSchema),
});

/** Drops null and undefined fields (zod's nullish reads them both). */
function defined<Value extends Record<string, unknown>>(value: Value): Value {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== null && field !== undefined),
  ) as Value;
}

/**
 * The recording a trace carries, or undefined when it has none (it was not recorded by the proxy);
 * a recording of another layout version is an error the caller reports.
 */
export function recordingOf(trace: Trace): Recording | undefined {
  const raw = trace.metadata.recording;
  if (raw === undefined) return undefined;
  const parsed = recordingSchema.safeParse(raw, FIRST_ISSUE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`metadata.recording.${issue.path.join('.')}: ${issue.message}`);
  }
  return {
    version: parsed.data.version,
    run: parsed.data.run,
    ...(parsed.data.upstream ? { upstream: parsed.data.upstream } : {}),
    startedAt: parsed.data.startedAt,
    calls: parsed.data.calls.map((call) => {
      const { response, request, ...rest } = defined(call);
      return {
        ...(rest as Omit<RecordedCall, 'response' | 'request'>),
        request: defined(request) as RequestFingerprint,
        ...(response ? { response: defined(response) as RecordedResponse } : {}),
      };
    }),
  };
}

/** How much of a message the recording keeps to show where a replay diverged. */
const PREVIEW = 200;

/** One line of a message for messages: its text, else its calls, shortened. */
export function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW - 3)}...` : line;
}

/**
 * What a recorded call asked, as a replay compares it: a hash of the whole conversation, and the
 * parts that say where a different request differs.
 */
export interface RequestFingerprint {
  /** The system prompt and conversation: speakers, text, calls and tool outputs. */
  hash: string;
  /** The last message, shortened. */
  last: string;
  /** A short hash of the system prompt (instructions). */
  system?: string;
  /**
   * A short hash of the system prompt with its numbers and long hex ids masked: the same for an
   * agent whose instructions hold the time or a random id, so `--lenient` can match it by role.
   */
  role?: string;
  /** The system prompt's first characters, to show where it differs. */
  instructions?: string;
  /** A short hash of each message's text (its calls, when it says nothing). */
  items?: string[];
}

/** How much of the instructions the recording keeps to show where a replay's differ. */
export const INSTRUCTIONS_KEPT = 1_000;

/** A short hash of a text. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

/** Instructions with what changes from run to run masked: numbers (times, dates) and hex ids. */
export function maskVolatile(text: string): string {
  return text.replace(/\b[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b/gi, '#').replace(/\d+/g, '0');
}

/** A message's text as the recording hashes it: its text, else its calls. */
export const itemText = (item: RequestView['items'][number]) =>
  item.text || callsText(item.toolCalls ?? []);

/**
 * A fingerprint of what a call asked: its system prompt and conversation (speakers, text, calls
 * and tool outputs). The model name and ids are left out, so the same conversation matches under
 * another model or with ids a framework makes up.
 */
export function requestFingerprint(view: RequestView): RequestFingerprint {
  const hash = createHash('sha256');
  hash.update(view.system);
  for (const item of view.items) {
    hash.update('\u0000');
    hash.update(item.role);
    hash.update('\u0001');
    hash.update(item.name ?? '');
    hash.update('\u0001');
    hash.update(item.text);
    for (const call of item.toolCalls ?? []) {
      hash.update('\u0002');
      hash.update(call.name);
      hash.update('\u0003');
      hash.update(call.arguments);
    }
  }
  const last = view.items.at(-1);
  const lastText = last ? `${last.role}: ${itemText(last)}` : '';
  return {
    hash: hash.digest('hex').slice(0, 32),
    last: preview(lastText),
    system: shortHash(view.system),
    role: shortHash(maskVolatile(view.system)),
    instructions: view.system.slice(0, INSTRUCTIONS_KEPT),
    items: view.items.map((item) => shortHash(itemText(item))),
  };
}
