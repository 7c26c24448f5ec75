/**
 * Writing canonical traces back out: as the original tool's message JSON (`history` of
 * `{role, name, content}` plus question, ground truth, labels and the recorded outcome), which
 * faultline reads back as-is.
 */
import type { StepRole, Trace } from './model.js';

const CHAT_ROLE: Record<StepRole, string> = {
  agent: 'assistant',
  tool: 'tool',
  human: 'user',
  system: 'system',
};

/** A message document in the shape the original tool accepts. */
export interface MessagesDocument {
  question?: string;
  ground_truth?: string;
  history: { role: string; name: string; content: string }[];
  mistake_agent?: string;
  mistake_step?: string;
  mistake_reason?: string;
  /** Who&When's outcome field: false for a run recorded as failed, true for one that succeeded. */
  is_correct?: boolean;
}

/** Converts a trace to the `messages` format; step indices are preserved one-to-one. */
export function toMessagesDocument(trace: Trace): MessagesDocument {
  const document: MessagesDocument = {
    history: trace.steps.map((step) => ({
      role: CHAT_ROLE[step.role],
      name: step.speaker,
      content: step.content,
    })),
  };
  if (trace.question) document.question = trace.question;
  if (trace.groundTruth) document.ground_truth = trace.groundTruth;
  if (trace.labels?.agent) document.mistake_agent = trace.labels.agent;
  if (trace.labels?.step !== undefined) document.mistake_step = String(trace.labels.step);
  if (trace.labels?.reason) document.mistake_reason = trace.labels.reason;
  if (trace.outcome !== 'unknown') document.is_correct = trace.outcome === 'success';
  return document;
}
