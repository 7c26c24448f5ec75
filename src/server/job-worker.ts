/**
 * A job worker thread: opens its own connection to the server's database (on PostgreSQL, a pool
 * of its own) and runs the jobs the pool posts, several at once, one message back per job (the
 * answer, or the error as an HTTP answer). A database it cannot open ends the thread, and the
 * pool starts another after a wait (job-pool.ts); jobs posted meanwhile wait in the port.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { errorAnswer } from './http-errors.js';
import { runJob } from './jobs.js';
import type { JobMessage, JobReply } from './job-pool.js';

const { databaseFile } = workerData as { databaseFile: string };
const repository = new Repository(await openDatabase(databaseFile));
// Jobs' deadlines count from here: starting a worker is not the job's time (job-pool.ts).
parentPort!.postMessage({ ready: true } satisfies JobReply);

parentPort!.on('message', (message: JobMessage) => {
  runJob(repository, message.job).then(
    (value) => parentPort!.postMessage({ id: message.id, ok: true, value } satisfies JobReply),
    (error: unknown) =>
      parentPort!.postMessage({
        id: message.id,
        ok: false,
        answer: errorAnswer(error),
      } satisfies JobReply),
  );
});
