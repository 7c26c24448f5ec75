/**
 * The Who&When paper's prompts (`--prompts paper`), character for character as the reference code
 * builds them: `Lib/utils.py` of ag2ai/Agents_Failure_Attribution, commit f4d2b6d (MIT licence,
 * Copyright (c) 2025 Ming Yin; the API-model variants `all_at_once`, `step_by_step` and
 * `_construct_binary_search_prompt`). Its quirks are kept on purpose: two spaces after "The
 * problem is:", "(Step {idx})" written literally, no space before "Respond ONLY" or "Please
 * answer", a curly apostrophe in one "user’s". A step is shown as its speaker exactly as the source
 * writes it (Who&When: `role` in Hand-Crafted records, `name` in Algorithm-Generated ones, which is
 * how the reference tells the two layouts apart) followed by its content. Without ground truth the
 * line "The Answer for the problem is: ..." is left out, as the reference's comments say; with it,
 * a trace that has none shows it empty, as the reference does.
 * scripts/paper-prompt-fixtures.py runs the reference to make the fixtures the tests compare with.
 */
import type { Trace } from '../../trace/model.js';

/** The system message of each method. */
export const PAPER_SYSTEM = {
  allAtOnce: 'You are a helpful assistant skilled in analyzing conversations.',
  stepByStep: 'You are a precise step-by-step conversation evaluator.',
  binarySearch:
    'You are an AI assistant specializing in localizing errors in conversation segments.',
} as const;

/** The ground-truth line, or nothing without ground truth. */
function answerLine(trace: Trace, useGroundTruth: boolean): string {
  return useGroundTruth ? `The Answer for the problem is: ${trace.groundTruth ?? ''}\n` : '';
}

/** Steps `start` to `end` as the reference joins them: "speaker: content", one per line. */
function conversation(trace: Trace, start: number, end: number): string {
  return trace.steps
    .slice(start, end + 1)
    .map((step) => `${step.speaker}: ${step.content}`)
    .join('\n');
}

/** The example of All-at-Once's question, with the indentation of the reference's source. */
const STEP_EXAMPLE = `
            {
                "agent a": "xx",
                "agent b": "xxxx",
                "agent c": "xxxxx",
                "agent a": "xxxxxxx"
            },
            `;

/** All-at-Once: the whole conversation, then agent, step and reason in a text format. */
export function paperAllAtOncePrompt(trace: Trace, useGroundTruth: boolean): string {
  return (
    'You are an AI assistant tasked with analyzing a multi-agent conversation history when solving a real world problem. ' +
    `The problem is:  ${trace.question ?? ''}\n` +
    answerLine(trace, useGroundTruth) +
    'Identify which agent made an error, at which step, and explain the reason for the error. ' +
    "Here's the conversation:\n\n" +
    conversation(trace, 0, trace.steps.length - 1) +
    '\n\nBased on this conversation, please predict the following:\n' +
    '1. The name of the agent who made a mistake that should be directly responsible for the wrong solution to the real world problem. If there are no agents that make obvious mistakes, decide one single agent in your mind. Directly output the name of the Expert.\n' +
    '2. In which step the mistake agent first made mistake. For example, in a conversation structured as follows: ' +
    STEP_EXAMPLE +
    "each entry represents a 'step' where an agent provides input. The 'x' symbolizes the speech of each agent. If the mistake is in agent c's speech, the step number is 2. If the second speech by 'agent a' contains the mistake, the step number is 3, and so on. Please determine the step number where the first mistake occurred.\n" +
    '3. The reason for your prediction.' +
    'Please answer in the format: Agent Name: (Your prediction)\n Step Number: (Your prediction)\n Reason for Mistake: \n'
  );
}

/** Step-by-Step: the conversation up to step `index` (numbered), and a Yes/No on that step. */
export function paperStepPrompt(trace: Trace, index: number, useGroundTruth: boolean): string {
  const history = trace.steps
    .slice(0, index + 1)
    .map((step, position) => `Step ${position} - ${step.speaker}: ${step.content}\n`)
    .join('');
  return (
    `You are an AI assistant tasked with evaluating the correctness of each step in an ongoing multi-agent conversation aimed at solving a real-world problem. The problem being addressed is: ${trace.question ?? ''}. ` +
    answerLine(trace, useGroundTruth) +
    `Here is the conversation history up to the current step:\n${history}\n` +
    `The most recent step (${index}) was by '${trace.steps[index]!.speaker}'.\n` +
    // Not a format string in the reference either: "{idx}" reaches the model as written.
    "Your task is to determine whether this most recent agent's action (Step {idx}) contains an error that could hinder the problem-solving process or lead to an incorrect solution. " +
    "Please respond with 'Yes' or 'No' and provide a clear explanation for your judgment. " +
    'Note: Please avoid being overly critical in your evaluation. Focus on errors that clearly derail the process.' +
    'Respond ONLY in the format: 1. Yes/No.\n2. Reason: [Your explanation here]'
  );
}

/**
 * Binary Search: steps `start` to `end` (unnumbered), and which half holds the error. The "upper
 * half" is the earlier one, `start` to `middle`; the "lower half" is `middle + 1` to `end`.
 */
export function paperSegmentPrompt(
  trace: Trace,
  start: number,
  middle: number,
  end: number,
  useGroundTruth: boolean,
): string {
  return (
    'You are an AI assistant tasked with analyzing a segment of a multi-agent conversation. Multiple agents are collaborating to address a user query, with the goal of resolving the query through their collective dialogue.\n' +
    'Your primary task is to identify the location of the most critical mistake within the provided segment. Determine which half of the segment contains the single step where this crucial error occurs, ultimately leading to the failure in resolving the user’s query.\n' +
    `The problem to address is as follows: ${trace.question ?? ''}\n` +
    answerLine(trace, useGroundTruth) +
    `Review the following conversation segment from step ${start} to step ${end}:\n\n${conversation(trace, start, end)}\n\n` +
    `Based on your analysis, predict whether the most critical error is more likely to be located in the upper half (from step ${start} to step ${middle}) or the lower half (from step ${middle + 1} to step ${end}) of this segment.\n` +
    "Please provide your prediction by responding with ONLY 'upper half' or 'lower half'. Remember, your answer should be based on identifying the mistake that directly contributes to the failure in resolving the user's query. If no single clear error is evident, consider the step you believe is most responsible for the failure, allowing for subjective judgment, and base your answer on that."
  );
}
