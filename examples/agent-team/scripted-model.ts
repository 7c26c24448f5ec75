/**
 * A deterministic stand-in for a model, speaking OpenAI Chat Completions on 127.0.0.1, for trying
 * the team (and faultline's recording and replay) without a key. Its answers follow from the
 * request, as a model's would: the planner's plan from the task, the coder's code from the plan it
 * was given (not from the task), the coder's report from run_code's output, the reviewer's verdict
 * from the result it was shown. So one wrong answer really propagates to a failed check.
 *
 * `fault` makes one agent wrong on purpose: the planner plans one number off, the coder's code is
 * off by one, or the reviewer rejects a right result. It also answers faultline's fix requests
 * (replay --fix-model, verify) as a model that knows the right step would.
 *
 *   node --import tsx examples/agent-team/scripted-model.ts --port 8700 --fault coder
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runInNewContext } from 'node:vm';

/** The agent a scripted model gets wrong. */
export type Fault = 'planner' | 'coder' | 'reviewer';

interface Message {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

interface Reply {
  text: string;
  toolCall?: { name: string; arguments: string };
}

const textOf = (message: Message | undefined) =>
  typeof message?.content === 'string'
    ? message.content
    : (message?.content ?? []).map((part) => part.text ?? '').join('');

/** One more than the last number of a text: a planner's slip. */
const lastNumberOff = (text: string) =>
  text.replace(/(\d+)(?!.*\d)/, (number) => String(Number(number) + 1));

/** The plan for a task. */
export function planFor(task: string, fault?: Fault): string {
  const arithmetic = /What is (.+)\?/.exec(task);
  if (arithmetic) {
    const expression = fault === 'planner' ? lastNumberOff(arithmetic[1]!) : arithmetic[1]!;
    return `1. Evaluate \`${expression}\` with run_code.\n2. Report the value it returns.`;
  }
  const loop =
    /(sum of the squares|sum of the cubes|sum|product) of the numbers from (\d+) to (\d+)/.exec(
      task,
    );
  if (!loop) return '1. Work out the answer with run_code.\n2. Report it.';
  const [, kind, from, to] = loop;
  const term =
    kind === 'sum of the squares' ? 'i * i' : kind === 'sum of the cubes' ? 'i * i * i' : 'i';
  const last = fault === 'planner' ? Number(to) + 1 : Number(to);
  return kind === 'product'
    ? `1. Loop i from ${from} to ${last}.\n2. Multiply a running product by ${term}.\n3. Return the product.`
    : `1. Loop i from ${from} to ${last}.\n2. Add ${term} to a running total.\n3. Return the total.`;
}

/** The code for a plan, as the coder reads it. */
export function codeFor(plan: string, fault?: Fault): string {
  const expression = /`([^`]+)`/.exec(plan);
  if (expression) return fault === 'coder' ? `${expression[1]} + 1` : expression[1]!;
  const loop = /Loop i from (\d+) to (\d+)/.exec(plan);
  const term = /(?:Multiply a running product by|Add) (.+?)(?: to a running total)?\.\s*$/m.exec(
    plan,
  );
  if (!loop || !term) return 'NaN';
  const product = plan.includes('product');
  const bound = fault === 'coder' ? `i < ${loop[2]}` : `i <= ${loop[2]}`;
  return `let total = ${product ? 1 : 0};\nfor (let i = ${loop[1]}; ${bound}; i += 1) total ${product ? '*=' : '+='} ${term[1]};\ntotal`;
}

const run = (code: string) => String(runInNewContext(code, {}, { timeout: 1000 }));

/** A fix request (faultline replay --fix-model, verify): the step as it should have been. */
function fixReply(prompt: string): Reply {
  const task = /^Task: (.*)$/m.exec(prompt)?.[1] ?? '';
  const agent = /Step to rewrite: Step \d+ - (\S+)/.exec(prompt)?.[1] ?? '';
  const plan = planFor(task);
  const code = codeFor(plan);
  const value = run(code);
  const fix =
    agent === 'planner'
      ? { content: plan, toolCalls: [] }
      : agent === 'coder' && prompt.includes('\nIt called tools:')
        ? { content: '', toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ code }) }] }
        : agent === 'coder'
          ? { content: `RESULT: ${value}`, toolCalls: [] }
          : {
              content: `APPROVED. The code follows the plan and answers the task.\nFINAL ANSWER: ${value}`,
              toolCalls: [],
            };
  return { text: JSON.stringify(fix) };
}

/** The scripted answer to a chat request. */
export function answer(messages: Message[], fault?: Fault): Reply {
  const system = textOf(messages.find((message) => message.role === 'system'));
  const user = textOf(messages.find((message) => message.role === 'user'));
  if (system.startsWith('You rewrite one step')) return fixReply(user);
  const task = /^Task: (.*)$/m.exec(user)?.[1] ?? '';
  const role = /You are the (planner|coder|reviewer)\b/.exec(system)?.[1];
  if (role === 'planner') return { text: planFor(task, fault) };
  if (role === 'coder') {
    const output = messages.filter((message) => message.role === 'tool').at(-1);
    if (output) return { text: `RESULT: ${textOf(output).replace(/^"|"$/g, '')}` };
    const plan = user.split('\nPlan:\n')[1] ?? '';
    return {
      text: '',
      toolCall: { name: 'run_code', arguments: JSON.stringify({ code: codeFor(plan, fault) }) },
    };
  }
  if (role === 'reviewer') {
    const result = /^Result: (.*)$/m.exec(user)?.[1] ?? '';
    return fault === 'reviewer'
      ? { text: `REJECTED. The result looks wrong to me.\nFINAL ANSWER: ${result}` }
      : {
          text: `APPROVED. The code follows the plan and answers the task.\nFINAL ANSWER: ${result}`,
        };
  }
  return { text: 'I can only play the planner, the coder and the reviewer of the agent team.' };
}

/** A chat completion body (or its stream) for a reply. */
function completion(reply: Reply, model: string, stream: boolean): { type: string; body: string } {
  const toolCalls = reply.toolCall
    ? [
        {
          id: `call_${reply.toolCall.arguments.length}`,
          type: 'function',
          function: reply.toolCall,
        },
      ]
    : undefined;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  const base = { id: 'chatcmpl-scripted', created: 1_767_225_600, model };
  const usage = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 };
  if (!stream) {
    const message = {
      role: 'assistant',
      content: toolCalls ? null : reply.text,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    return {
      type: 'application/json',
      body: JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    };
  }
  const chunk = (delta: unknown, finishReason: string | null) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  const body =
    chunk({ role: 'assistant', content: toolCalls ? null : reply.text }, null) +
    (toolCalls
      ? chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) }, null)
      : '') +
    chunk({}, finish) +
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\ndata: [DONE]\n\n`;
  return { type: 'text/event-stream', body };
}

/** A running scripted model. */
export interface ScriptedModel {
  /** `http://127.0.0.1:PORT/v1`: the team's OPENAI_BASE_URL, or faultline's --upstream. */
  baseUrl: string;
  /** How many calls it answered. */
  calls(): number;
  close(): Promise<void>;
}

/** Starts the scripted model on 127.0.0.1 (port 0: a free one). */
export async function startScriptedModel(
  options: { fault?: Fault; port?: number } = {},
): Promise<ScriptedModel> {
  let calls = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (!(request.url ?? '').endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { message: 'only /v1/chat/completions is scripted' } }),
        );
        return;
      }
      let body: { model?: string; stream?: boolean; messages?: Message[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'the body is not JSON' } }));
        return;
      }
      calls += 1;
      const reply = answer(body.messages ?? [], options.fault);
      const written = completion(reply, body.model ?? 'scripted', body.stream === true);
      response.writeHead(200, { 'content-type': written.type });
      response.end(written.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '8700' }, fault: { type: 'string' } },
  });
  if (values.fault && !['planner', 'coder', 'reviewer'].includes(values.fault))
    throw new Error(`--fault must be planner, coder or reviewer, got "${values.fault}"`);
  const model = await startScriptedModel({
    port: Number(values.port),
    ...(values.fault ? { fault: values.fault as Fault } : {}),
  });
  process.stdout.write(
    `scripted model at ${model.baseUrl}${values.fault ? ` (the ${values.fault} is wrong)` : ''}; Ctrl-C to stop\n`,
  );
}
