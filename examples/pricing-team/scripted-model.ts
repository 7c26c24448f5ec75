/**
 * The pricing team's scripted model: an OpenAI-compatible server on 127.0.0.1 (Chat Completions
 * and the Responses API, streamed and not, tool-call deltas) whose answers follow from each
 * request (brain.ts). `--fault` makes the researcher misreport the unit price; `--errors SEED`
 * makes the team err at random, seeded (the researcher misreports on about half the runs, the
 * analyst leaves the fee out on about a quarter; random-errors.ts).
 *
 *   node --import tsx examples/pricing-team/scripted-model.ts --port 8700 --fault
 *   node --import tsx examples/pricing-team/scripted-model.ts --port 8700 --errors 7
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startWireServer, type WireServer } from '../../test/wire-server.js';
import { pricingAnswer } from './brain.js';
import { randomErrors, type ErrorRates } from './random-errors.js';

/** Starts the scripted model (port 0: a free one). */
export function startPricingModel(
  options: { fault?: boolean; port?: number; errors?: ErrorRates } = {},
): Promise<WireServer> {
  const errors = options.errors ? randomErrors(options.errors) : undefined;
  return startWireServer(
    (request) => pricingAnswer(request.path, request.body, options.fault ?? false, errors),
    options.port ?? 0,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8700' },
      fault: { type: 'boolean', default: false },
      errors: { type: 'string' },
    },
  });
  const model = await startPricingModel({
    fault: values.fault,
    port: Number(values.port),
    ...(values.errors === undefined ? {} : { errors: { seed: Number(values.errors) } }),
  });
  console.error(
    `scripted pricing model at ${model.baseUrl}${values.fault ? ' (researcher misreports)' : ''}${values.errors === undefined ? '' : ` (errs at random, seed ${values.errors})`}`,
  );
}
