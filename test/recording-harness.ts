/**
 * Shared set-up of the recording tests: a temporary FAULTLINE_HOME, a local model server, a
 * recorder writing into the temporary folder and its database, and a proxy in front of the server.
 * Everything listens on 127.0.0.1 with a free port and is removed afterwards.
 */
import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startWireServer,
  type WireAnswer,
  type WireRequest,
  type WireServer,
} from './wire-server.js';
import { openDatabase, type Db } from '../src/store/database.js';
import { RunStore } from '../src/store/runs.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../src/recording/proxy/proxy.js';
import { Recorder } from '../src/recording/record/recorder.js';

/** A proxy in front of a local model server, with its folders. */
export interface Harness {
  home: string;
  runsFolder: string;
  upstream: WireServer;
  proxy: RunningProxy;
  recorder: Recorder;
  db: Db;
  runs: RunStore;
  lines: string[];
  close(): Promise<void>;
}

/** Starts a harness; `answer` scripts the model server. */
export async function startHarness(
  answer?: (request: WireRequest) => WireAnswer,
  options: Partial<Omit<ProxyOptions, 'recorder'>> = {},
): Promise<Harness> {
  const home = mkdtempSync(join(tmpdir(), 'faultline-recording-'));
  const previousHome = process.env.FAULTLINE_HOME;
  process.env.FAULTLINE_HOME = home;
  const runsFolder = join(home, 'runs');
  const upstream = await startWireServer(answer);
  const db = await openDatabase(join(home, 'faultline.db'));
  const runs = new RunStore(db);
  const lines: string[] = [];
  const recorder = new Recorder({
    folder: runsFolder,
    store: runs,
    flushMs: 5,
    log: (line) => lines.push(line),
  });
  const proxy = await startProxy({
    upstream: upstream.baseUrl,
    recorder,
    port: 0,
    log: (line) => lines.push(line),
    ...options,
  });
  return {
    home,
    runsFolder,
    upstream,
    proxy,
    recorder,
    db,
    runs,
    lines,
    async close() {
      await proxy.close();
      await upstream.close();
      await db.close();
      if (previousHome === undefined) delete process.env.FAULTLINE_HOME;
      else process.env.FAULTLINE_HOME = previousHome;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * Records one team run through the proxy with the official `openai` client: three calls by
 * agents A, B, A under one run header.
 */
export async function recordTeamRun(harness: Harness, runId: string): Promise<void> {
  const client = new OpenAI({
    baseURL: `${harness.proxy.url}/v1`,
    apiKey: 'sk-test',
    maxRetries: 0,
  });
  for (const [agent, text] of [
    ['A', 'Plan the sum of 2 and 3.'],
    ['B', 'Compute it.'],
    ['A', 'Report the answer.'],
  ] as const)
    await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: text }] },
      { headers: { 'x-faultline-agent': agent, 'x-faultline-run': runId } },
    );
}
