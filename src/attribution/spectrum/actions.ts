/**
 * The action part of a spectrum unit, read offline from one step: the tool it called, else what
 * its message does. Rules in order, first match wins (docs/SPECTRUM.md lists them): an error the
 * step records or reports, a tool call, a delegation (Magentic-One's `Orchestrator (-> WebSurfer)`,
 * a handoff), a tool's output, a final answer, a plan, code to run, a check of earlier work, a
 * browsing act ("I clicked …"), a question, else a report.
 */
import type { Step } from '../../trace/model.js';

const ERROR = /\b(?:traceback|exception|error:|exitcode: [1-9]|failed to|execution failed)\b/i;
const ANSWER = /\b(?:final answer|terminate\b|the answer is|answer:)/i;
const PLAN = /\b(?:plan\b|initial plan|updated ledger|steps? to (?:solve|take)|approach:)/i;
const CODE = /```(?:python|py|sh|bash|javascript|js|sql)?\s*\n/i;
const VERIFY = /\b(?:verif(?:y|ied|ication)|double-check|confirm(?:ed|s)?|validat(?:e|ed|ion))\b/i;
const BROWSE = /^\s*i (typed|clicked|scrolled|visited|searched|opened|navigated|hovered|went)\b/i;
const DELEGATE_SPEAKER = /\(\s*->[^)]+\)/;

/** The action of a step: a short verb such as `plan`, `delegate`, `search` or a tool's name. */
export function actionOf(step: Step): string {
  const content = step.content;
  if (step.error || step.toolResults?.some((result) => result.isError)) return 'error';
  if (step.toolCalls && step.toolCalls.length > 0) {
    const name = step.toolCalls[0]!.name;
    return /^(?:transfer|handoff|delegate)/i.test(name) ? 'delegate' : `call:${name}`;
  }
  if (DELEGATE_SPEAKER.test(step.speaker)) return 'delegate';
  if (step.role === 'tool') return ERROR.test(content.slice(0, 2000)) ? 'error' : 'output';
  const opening = content.slice(0, 3000);
  if (ERROR.test(opening.slice(0, 300))) return 'error';
  const browse = BROWSE.exec(opening);
  if (browse) return browse[1]!.toLowerCase();
  if (ANSWER.test(opening)) return 'answer';
  if (PLAN.test(opening.slice(0, 400))) return 'plan';
  if (CODE.test(opening)) return 'code';
  if (VERIFY.test(opening)) return 'verify';
  if (/\?\s*$/.test(opening.trim())) return 'ask';
  return 'report';
}
