/**
 * The command-line options shared by commands that can call a model (attribute, eval), and their
 * translation into LlmOptions.
 */
import { Option, type Command } from 'commander';
import { PROMPT_STYLES, type LlmOptions, type PromptStyle } from '../attribution/llm/catalog.js';
import { UserError } from '../errors.js';
import { priceFile } from '../config.js';
import { readPriceFile, type Price } from '../llm/prices.js';
import { wholeNumber } from './flag-values.js';

/** The raw flags as commander parses them. */
export interface LlmFlags {
  model?: string;
  baseUrl?: string;
  cache: boolean;
  timeout: string;
  retries: string;
  prices?: string;
  contextTokens?: string;
  maxCalls?: string;
  prompts?: string;
}

/** Adds the model options to a command. */
export function addLlmOptions(command: Command): Command {
  return command
    .option(
      '--model <provider:model>',
      'model for LLM methods, e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, google:gemini-2.5-pro, ollama:llama3.1, openai-compatible:NAME',
    )
    .option(
      '--base-url <url>',
      'API endpoint (required for openai-compatible: vLLM, llama.cpp, LM Studio)',
    )
    .option('--no-cache', 'ignore and do not write the on-disk reply cache')
    .option('--timeout <seconds>', 'give up on a call after this long', '120')
    .option('--retries <n>', 'retries on HTTP 429 and 5xx (Retry-After is honoured)', '3')
    .option(
      '--prices <file>',
      'JSON price table overriding the built-in one (USD per million tokens)',
    )
    .option(
      '--context-tokens <n>',
      'model context window; longer logs are shortened with a warning',
    )
    .addOption(new Option('--max-calls <n>', 'step-by-step: most verdicts per trace'))
    .option(
      '--prompts <style>',
      "faultline (default) or paper: all-at-once, step-by-step and binary-search with the Who&When paper's prompts and reply reading (docs/PROTOCOL.md)",
    );
}

/** The `--prompts` value, checked. */
function promptStyle(value: string): PromptStyle {
  if (!(PROMPT_STYLES as readonly string[]).includes(value))
    throw new UserError(`--prompts must be one of ${PROMPT_STYLES.join(', ')}, got "${value}"`);
  return value as PromptStyle;
}

/** The price overrides `--prices` names, else FAULTLINE_PRICES; undefined when neither is set. */
export function priceOverrides(flag: string | undefined): Record<string, Price> | undefined {
  const file = priceFile(flag);
  return file === undefined ? undefined : readPriceFile(file);
}

/** LlmOptions from parsed flags (environment variables fill in the rest when the client is made). */
export function llmOptionsOf(flags: LlmFlags): LlmOptions {
  const prices = priceOverrides(flags.prices);
  return {
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    cache: flags.cache,
    timeoutMs: wholeNumber(flags.timeout, '--timeout', 1) * 1000,
    maxRetries: wholeNumber(flags.retries, '--retries', 0),
    ...(prices ? { prices } : {}),
    ...(flags.contextTokens
      ? { contextTokens: wholeNumber(flags.contextTokens, '--context-tokens', 1000) }
      : {}),
    ...(flags.maxCalls ? { maxCalls: wholeNumber(flags.maxCalls, '--max-calls', 1) } : {}),
    // Faultline's prompts are the default: only `paper` is passed on.
    ...(flags.prompts !== undefined && promptStyle(flags.prompts) === 'paper'
      ? { prompts: 'paper' as const }
      : {}),
  };
}
