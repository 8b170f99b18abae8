// Reads that run off the server's thread (store/reader): which lane a request waits in, when
// its requester has gone, and sending the JSON text a reader answers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ReadAbandoned, type Lane, type Reads } from '../store/reader/pool';
import type { ReadTask } from '../store/reader/execute';

/** Browsers send Sec-Fetch-Site with every request (scripts, Node fetch included, do not): the console's lane; any other client's is `api`. */
export const laneOf = (req: FastifyRequest): Lane => (req.headers['sec-fetch-site'] === undefined ? 'api' : 'console');

/** Sends a reader's JSON answer as it is (no second serialisation). */
export function sendJson(reply: FastifyReply, body: Buffer | string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/** Aborts when the response's connection closes before the answer was written (the client left). */
export function closedSignal(reply: FastifyReply): AbortSignal {
  const c = new AbortController();
  const res = reply.raw;
  if (res.destroyed && !res.writableFinished) c.abort();
  else res.once('close', () => res.writableFinished || c.abort());
  return c.signal;
}

/**
 * Reads `task` and sends its answer. A read whose client left before it ran is dropped by the
 * pool; the request then ends without an answer (nobody is there to read one) and without an
 * error in the log.
 */
export async function sendRead(req: FastifyRequest, reply: FastifyReply, reads: Reads, task: ReadTask): Promise<FastifyReply> {
  try {
    return sendJson(reply, await reads.read(task, laneOf(req), closedSignal(reply)));
  } catch (e) {
    if (!(e instanceof ReadAbandoned)) throw e;
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
}
