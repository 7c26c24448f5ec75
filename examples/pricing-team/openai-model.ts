/**
 * The model of the apps built on the AI SDK's providers (ai-sdk.ts, voltagent.ts): OpenAI's, at
 * OPENAI_BASE_URL (the scripted model, or a proxy in front of it), `PRICING_TEAM_MODEL` (default
 * `gpt-4o-mini`) over Chat Completions or the Responses API.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { runHeaders } from './tools.js';

/** The model, spoken to over `api` (`chat` or `responses`). */
export function openAiModel(api: string | undefined) {
  const openai = createOpenAI({
    baseURL: process.env.OPENAI_BASE_URL,
    apiKey: process.env.OPENAI_API_KEY ?? 'unused-by-the-scripted-model',
    headers: runHeaders(),
  });
  const modelId = process.env.PRICING_TEAM_MODEL ?? 'gpt-4o-mini';
  return api === 'responses' ? openai.responses(modelId) : openai.chat(modelId);
}
