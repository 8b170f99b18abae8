// Reads that run off the server's thread (store/reader): which lane a request waits in, and
// sending the JSON text a reader answers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Lane } from '../store/reader/pool';

/** Browsers send Sec-Fetch-Site with every request (scripts, Node fetch included, do not): the console's lane; any other client's is `api`. */
export const laneOf = (req: FastifyRequest): Lane => (req.headers['sec-fetch-site'] === undefined ? 'api' : 'console');

/** Sends a reader's JSON answer as it is (no second serialisation). */
export function sendJson(reply: FastifyReply, body: Buffer | string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
