/**
 * The pricing team's scripted model: an OpenAI-compatible server on 127.0.0.1 (Chat Completions
 * and the Responses API, streamed and not, tool-call deltas) whose answers follow from each
 * request (brain.ts). `--fault` makes the researcher misreport the unit price.
 *
 *   node --import tsx examples/pricing-team/scripted-model.ts --port 8700 --fault
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startWireServer, type WireServer } from '../../test/wire-server.js';
import { pricingAnswer } from './brain.js';

/** Starts the scripted model (port 0: a free one). */
export function startPricingModel(
  options: { fault?: boolean; port?: number } = {},
): Promise<WireServer> {
  return startWireServer(
    (request) => pricingAnswer(request.path, request.body, options.fault ?? false),
    options.port ?? 0,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8700' },
      fault: { type: 'boolean', default: false },
    },
  });
  const model = await startPricingModel({ fault: values.fault, port: Number(values.port) });
  console.error(
    `scripted pricing model at ${model.baseUrl}${values.fault ? ' (researcher misreports)' : ''}`,
  );
}
