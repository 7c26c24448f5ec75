/**
 * What an injection operator is: its signature for replies and for requests, and what it knows of
 * the call it changes. The operators are reply-operators.ts and request-operators.ts; their
 * registry is operators.ts.
 */
import type { ReplyContent, RequestView, WireName } from '../wire/types.js';
import type { InjectionTarget } from './plan.js';

/** An earlier agent step of the run, for operators that copy one. */
export interface EarlierReply {
  agent: string;
  reply: ReplyContent;
}

/** What an operator knows about the call it changes. */
export interface OperatorContext {
  target: InjectionTarget;
  request: RequestView;
  /** The run's earlier agent replies, oldest first. */
  earlier: EarlierReply[];
}

/** Changes a reply; undefined when there is nothing to change. */
export type ReplyOperator = (
  reply: ReplyContent,
  context: OperatorContext,
) => ReplyContent | undefined;

/** Changes a request body (parsed JSON) of a wire API; undefined when there is nothing to change. */
export type RequestOperator = (
  body: Record<string, unknown>,
  api: WireName,
  context: OperatorContext,
) => Record<string, unknown> | undefined;

/** One operator. */
export type Operator =
  | { strategy: 'response-corruption'; description: string; apply: ReplyOperator }
  | { strategy: 'prompt-injection'; description: string; apply: RequestOperator };
