/**
 * The agent's name a system prompt states. Every "You are …" sentence is read, in order, and the
 * first that names the agent wins: a framework's preamble ("You are part of a multi-agent
 * system…", the OpenAI Agents SDK's `RECOMMENDED_PROMPT_PREFIX`) or a generic one ("You are a
 * helpful assistant.") is skipped for the sentence after it that names a role. A role phrase ends
 * at its role noun ("You are a team supervisor managing a research expert…" names `supervisor`,
 * "You are a world class researcher with access…" names `researcher`), never mid-phrase.
 */
import { trimEndOf, trimStartOf } from '../../trace/text-limits.js';

/** Names a system prompt may give that say nothing about which agent it is. */
const GENERIC = new Set([
  'assistant',
  'ai',
  'ai assistant',
  'helpful assistant',
  'helpful ai assistant',
  'helpful ai',
  'language model',
  'large language model',
  'chatbot',
  'ai language model',
  'agent',
  'helpful agent',
]);

/**
 * Nouns that name an agent's role. A role phrase holding one is named by it alone, so the
 * modifiers around it ("world class", "team", "expert Python") do not split one role into many.
 */
const ROLE_NOUNS = new Set(
  (
    'supervisor researcher analyst coder programmer planner reviewer critic writer editor ' +
    'coordinator manager orchestrator router engineer developer tester summarizer summariser ' +
    'translator executor verifier checker solver mathematician scientist designer architect ' +
    'triager tutor teacher judge evaluator auditor validator retriever searcher scheduler ' +
    'accountant consultant strategist investigator librarian moderator negotiator ' +
    'proofreader copywriter debugger dispatcher'
  ).split(' '),
);

/** Words that end a role phrase: "the planner of a team", "an expert who writes". */
const ROLE_END =
  /^(?:who|that|which|of|in|for|with|tasked|responsible|and|to|on|at|from|by|whose|named|called|managing|working|helping|assisting|specializing|specialising|able|capable)$/i;

/** A name as it will be shown: one line, no surrounding punctuation or quotes, at most 60 characters. */
export function tidyName(name: string): string | undefined {
  // The ends are trimmed in one pass each: an unanchored end pattern rescans every run of spaces.
  const cleaned = trimEndOf(trimStartOf(name.replace(/\s+/g, ' '), ' "\'`*_'), ' "\'`*_.,:;!')
    .slice(0, 60)
    .trim();
  return cleaned.length > 0 ? cleaned : undefined;
}

/** The sentences of a prompt: split at line breaks and at sentence ends. */
const sentencesOf = (text: string) =>
  text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);

/** The role a phrase after "You are the / a / an" names, ending at its role noun. */
function rolePhrase(phrase: string): string | undefined {
  const words: string[] = [];
  for (const word of phrase.split(/\s+/)) {
    if (ROLE_END.test(word)) break;
    words.push(word);
    if (ROLE_NOUNS.has(word.toLowerCase())) return tidyName(word);
  }
  const name = tidyName(words.slice(0, 4).join(' '));
  return name && !GENERIC.has(name.toLowerCase()) ? name : undefined;
}

/** The name one "You are …" sentence gives, if it gives one. */
function nameInSentence(sentence: string): string | undefined {
  const opening = /^(?:#+\s*)?You are\s+(.{1,120})/.exec(sentence);
  if (!opening) return undefined;
  const rest = opening[1]!;
  // "You are Coder, …" / "You are Senior Research Analyst." : a capitalised name right after.
  const proper = /^([A-Z][\w-]*(?:[ _-][A-Z][\w-]*){0,4})(?=\s*(?:[.,:;!(]|$))/.exec(rest);
  if (proper && !GENERIC.has(proper[1]!.toLowerCase())) return tidyName(proper[1]!);
  // "You are the planner of …", "You are an expert Python coder who …".
  const role = /^(?:the|a|an)\s+([^.,:;!\n()]{1,80})/i.exec(rest);
  return role ? rolePhrase(role[1]!) : undefined;
}

/** The agent's name a system prompt states, if it states one. */
export function nameInSystemPrompt(system: string): string | undefined {
  const head = system.slice(0, 4000);
  const explicit =
    /\b(?:your name is|you are (?:called|named))\s+["'`]?([^\n"'`.,;:!]{1,60})/i.exec(head);
  if (explicit) return tidyName(explicit[1]!);
  // CrewAI: "You are {role}. {backstory}\nYour personal goal is: {goal}".
  if (/\nYour personal goal is:/.test(head)) {
    const role = /^\s*You are ([^\n]{1,80}?)\s*(?:\n|\.(?:\s|$))/.exec(head);
    if (role) return tidyName(role[1]!);
  }
  for (const sentence of sentencesOf(head)) {
    const name = nameInSentence(sentence);
    if (name) return name;
  }
  return undefined;
}
