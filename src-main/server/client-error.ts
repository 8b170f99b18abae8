// Node's HTTP parser refuses a malformed request (or one too large or too slow) before any app
// sees it: the answer is written on the socket, in the error shape. Used by the apps (Fastify's
// clientErrorHandler) and by a port's gate while its app is not yet built.
import http from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../../src-shared/errors';
import { MAX_HEADER_BYTES } from './limits';

/** Node's HTTP parser refused the request before Fastify saw it: answer on the socket. */
export function clientErrorAnswer(err: { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `the request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KiB`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, 'malformed HTTP request'];
  const body = JSON.stringify(errorBody(status, text));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
