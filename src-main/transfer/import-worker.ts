// The import's own thread (see import-thread.ts): reads the files and writes them into the
// database through a connection of its own, so the server's event loop never waits for it.
// Progress, the summary and a refusal go back as messages; a `cancel` message aborts it (the
// importer stops at its next check and rolls back).
import { parentPort, workerData } from 'node:worker_threads';
import { isBusy } from '../store/connection';
import { CancelledError, TransferError } from './errors';
import { importFiles } from './import';
import type { ImportJobInput, ImportWorkerMessage, ParentMessage } from './import-thread';

const port = parentPort!;
const input = workerData as ImportJobInput;
const controller = new AbortController();
port.on('message', (m: ParentMessage) => {
  if (m.type === 'cancel') controller.abort();
});

const send = (m: ImportWorkerMessage) => port.postMessage(m);
/** The last message: the thread then ends (the port no longer holds it open). */
const end = (m: ImportWorkerMessage) => {
  send(m);
  port.close();
};

importFiles(input.target, input.paths, { ...input.opts, signal: controller.signal, onProgress: (progress) => send({ type: 'progress', progress }) }).then(
  (summary) => end({ type: 'done', summary }),
  (e: unknown) => {
    if (e instanceof CancelledError || controller.signal.aborted) return end({ type: 'failed', error: { kind: 'cancelled', reason: 'cancelled', where: {}, status: 409 } });
    if (e instanceof TransferError) return end({ type: 'failed', error: { kind: 'transfer', reason: e.reason, where: e.where, status: e.status } });
    const message = (e as Error)?.message ?? String(e);
    end({ type: 'failed', error: { kind: 'transfer', reason: message, where: {}, status: isBusy(e) ? 503 : 500 } });
  },
);
