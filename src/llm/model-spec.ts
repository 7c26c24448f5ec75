/**
 * `provider:model` names, parsed once. `openai:gpt-4o`, `anthropic:claude-sonnet-4-5`,
 * `ollama:llama3.1`, `openai-compatible:qwen2.5` (with --base-url).
 */
import { UserError } from '../errors.js';

/** A parsed model name. */
export interface ModelSpec {
  provider: string;
  model: string;
}

/** Splits `provider:model`; the model part may itself contain colons (`ollama:llama3.1:8b`). */
export function parseModelSpec(text: string, providers: readonly string[]): ModelSpec {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) {
    throw new UserError(
      `model "${text}" must be written provider:model, e.g. openai:gpt-4o; providers: ${providers.join(', ')}`,
    );
  }
  const provider = text.slice(0, colon);
  if (!providers.includes(provider))
    throw new UserError(
      `unknown provider "${provider}" in "${text}"; choose one of: ${providers.join(', ')}`,
    );
  return { provider, model: text.slice(colon + 1) };
}
