/**
 * The recording proxy's settings and the interfaces of what plugs into it: a responder that
 * answers calls itself (replay) and an injector that changes calls on their way (fault injection).
 */
import type { proxyGuard } from './guard.js';
import type { AgentSource, RunClock } from '../record/identify.js';
import type { Recorder } from '../record/recorder.js';
import type { RequestFingerprint } from '../record/recording.js';
import type { ReplyView, RequestView, WireApi } from '../wire/types.js';

/** A call as a responder sees it. */
export interface ProxiedCall {
  run: string;
  agent: string;
  /** How many calls the agent made before this one in the run. */
  agentCall: number;
  api: WireApi;
  request: RequestView;
  /** Where the agent's name came from (a fingerprint of its instructions, say). */
  agentSource?: AgentSource;
  /** The fingerprint recorded for the call (record/recording.ts). */
  fingerprint: RequestFingerprint;
}

/** How the proxy answers a call itself. */
export type Answer =
  | {
      kind: 'recording' | 'fix';
      status: number;
      headers: Record<string, string>;
      body: string;
      reply: ReplyView;
    }
  | { kind: 'refuse'; status: number; message: string }
  /** A recorded call whose upstream dropped the connection: the client's is dropped too. */
  | { kind: 'drop'; message: string };

/** Answers some calls instead of the upstream (replay). */
export interface Responder {
  /** The answer to a call, or undefined to forward it upstream. */
  answer(call: ProxiedCall): Answer | undefined;
}

/** A reply an injector writes in place of the upstream's. */
export interface InjectedReply {
  contentType: string;
  body: string;
  reply: ReplyView;
}

/** Changes chosen calls on their way through (fault injection, src/recording/inject/). */
export interface Injector {
  /** The request body to forward instead of the client's (prompt injection), or undefined. */
  rewriteRequest(call: ProxiedCall, body: unknown): Promise<unknown>;
  /** True when the call's reply is to be replaced: it is then read whole before the client gets it. */
  replacesReply(call: ProxiedCall): boolean;
  /** The reply the client gets instead of the upstream's (response corruption), or undefined. */
  replaceReply(
    call: ProxiedCall,
    upstream: { body: string; streamed: boolean; reply: ReplyView },
  ): Promise<InjectedReply | undefined>;
}

/** Settings of the proxy. */
export interface ProxyOptions {
  /** Where OpenAI calls (and other paths without Anthropic's headers) go, e.g. https://api.openai.com/v1. */
  upstream: string;
  /** Where Anthropic Messages calls go (default: `upstream`). */
  anthropicUpstream?: string;
  recorder: Recorder;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required off loopback. */
  token?: string;
  /** Idle time after which a call without a run header starts a new run (default 30 s). */
  runGapMs?: number;
  /** Every call belongs to this run (replay records one run). */
  run?: string;
  responder?: Responder;
  /** Changes chosen calls (fault injection); the recording keeps what the client got. */
  injector?: Injector;
  /**
   * Ask Chat Completions upstreams for token log probabilities when the client did not, record
   * them per step, and strip them from what the client gets (logprobs.ts).
   */
  logprobs?: boolean;
  /** Largest request body (default 32 MB). */
  maxRequestBytes?: number;
  /** Most bytes of one reply kept in the recording (default 8 MB); the client gets all of it. */
  recordLimitBytes?: number;
  /** One line per call and per problem. Keys and headers are never logged. */
  log?: (line: string) => void;
}

/** A running proxy. */
export interface RunningProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Stops listening, ends open connections and writes every run. */
  close(): Promise<void>;
}

/** What the proxy's handlers share: its settings, upstreams, run clock and limits. */
export interface ProxyContext {
  options: ProxyOptions;
  upstream: URL;
  anthropicUpstream: URL;
  clock: RunClock;
  log: (line: string) => void;
  /** Largest request body, in bytes. */
  maxRequest: number;
  /** Most bytes of one reply kept in the recording. */
  recordLimit: number;
  /** Why a request is refused (guard.ts), or undefined when it may go on. */
  refusal: ReturnType<typeof proxyGuard>;
}
