// The console's import, export and snapshot endpoints (main port):
//
//   POST   /console/v1/import?instance=|new_instance=&kind=&filename=&ignore_unknown=&as_changes=&delimiter=&encoding=&wait=
//          body: the file itself (JSON, NDJSON, CSV or .zip), streamed to a temporary file; starts
//          an import job (202 + the job; with wait=1, 200 + the summary or 400 + the error)
//   GET    /console/v1/jobs, /console/v1/jobs/:id     progress (records, bytes, rate, ETA), summary
//   DELETE /console/v1/jobs/:id                       cancels (the import rolls back)
//   POST   /console/v1/export    {resource, format, search | query, columns, instance, ...}
//   GET    /console/v1/export?resource=&format=&search=<json>&query=<string>&columns=a,b
//          streamed download (Content-Disposition); a client that goes away stops it
//   POST   /console/v1/export/tickets  {same body as POST /export} -> {id, url, expires_at}: a link
//          (GET /console/v1/export?ticket=) a browser follows without credentials, once, within 60 s
//   GET    /console/v1/export/tickets/:id   that download: waiting, running (rows, bytes), done, ...
//   DELETE /console/v1/export/tickets/:id   cancels it
//   POST   /console/v1/snapshot  {url, api_key | instance, name, db_file, per_page}  -> a job
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { ApiError, badRequest, conflict, ERR, notFound } from '../../../src-shared/errors';
import { exportSearchSchema, type ExportRequest } from '../../../src-shared/schemas/transfer';
import type { InstanceInfo, InstanceManager } from '../../instances/manager';
import { checkExport, prepareExport, type ExportSpec } from '../../transfer/export';
import { CancelledError, TransferError } from '../../transfer/errors';
import { resolveKind } from '../../transfer/import';
import { importInThread } from '../../transfer/import-thread';
import { JobRegistry } from '../../transfer/jobs';
import { checkpointFileOf, readCheckpoint, snapshot } from '../../transfer/snapshot';
import { serve } from '../contract';
import { JsonDepthError, parseJson } from '../../../src-shared/json';
import type { ApiDeps } from '../deps';
import { sendError } from '../errors';
import { ExportTickets, type TicketRefusal } from '../export-tickets';
import { CONSOLE_URL } from './console';
import { frontLinkBase } from './public';

export interface TransferDeps {
  deps: ApiDeps;
  manager: InstanceManager;
}

const truthy = (v: string | undefined): boolean => v === '1' || v === 'true';

const TICKET_REFUSALS: Record<TicketRefusal, string> = {
  unknown: 'unknown download ticket',
  used: 'the download ticket was already used',
  expired: 'the download ticket has expired',
};

const uploadTooLarge = (max: number): ApiError => new ApiError(413, `the upload is larger than ${max} bytes (the server's import limit)`);

/** Passes bytes through until more than `max` have come: then fails with 413. */
function sizeBound(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > max) return cb(uploadTooLarge(max));
      cb(null, chunk);
    },
  });
}

function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9а-яё_-]+/giu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return s || 'instance';
}

const stamp = (): string => new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

export function registerTransfer(app: FastifyInstance, o: TransferDeps): void {
  const jobs = new JobRegistry();
  app.addHook('onClose', async () => jobs.close());
  const ops = consoleOperations();

  const mainFile = (): string => {
    const db = o.deps.store().db;
    if (db.memory) throw new ApiError(400, 'the main instance is in memory: import and export need a database file');
    return db.name;
  };
  const mainDir = (): string => path.dirname(mainFile());

  const findInstance = (ref: string): InstanceInfo => {
    const info = o.manager.find(ref) ?? o.manager.list().find((i) => i.name === ref);
    if (!info) throw notFound(`no instance ${ref}`);
    return info;
  };

  /** The database file of a local instance (the main one by default). */
  const localTarget = (ref: string | undefined): { file: string; instance: { id: string; name: string } } => {
    const info = ref === undefined ? o.manager.list().find((i) => i.kind === 'main')! : findInstance(ref);
    if (info.kind === 'remote') throw badRequest(`${info.name} is a remote instance: take a snapshot of it first (POST ${CONSOLE_URL}/snapshot)`);
    return { file: info.kind === 'main' ? mainFile() : info.row!.db_file!, instance: { id: info.id, name: info.name } };
  };

  const nameTaken = (name: string): boolean => o.manager.list().some((i) => i.name === name);

  const answerJob = async (reply: FastifyReply, job: ReturnType<JobRegistry['start']>, wait: boolean) => {
    if (!wait) return reply.code(202).header('location', `${CONSOLE_URL}/jobs/${job.id}`).send(job.view());
    await job.done;
    const v = job.view();
    if (v.state === 'done') return reply.code(200).send(v);
    // A failure of the server itself is a bare 500 here; the job's own view keeps the detail.
    const status = job.failureStatus();
    return sendError(reply, status, status >= 500 && status !== 503 ? ERR.internal : (v.error?.message ?? v.state));
  };

  // ------------------------------------------------------------------------------ import
  // The upload is not parsed: a scope of its own takes any content type as a raw stream.
  // Its size is bounded by limits.importBytes: refused from Content-Length before a byte is read,
  // and counted as it streams (a chunked upload has no Content-Length).
  const maxUpload = app.limits.importBytes;
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (req, payload, done) => {
      const announced = Number(req.headers['content-length']);
      if (Number.isFinite(announced) && announced > maxUpload) return done(uploadTooLarge(maxUpload), undefined);
      return done(null, payload);
    });
    serve(scope, ops.import, async (req, reply) => {
        const qy = req.query;
        if (qy.instance && qy.new_instance) throw badRequest('give either instance or new_instance, not both');
        try {
          resolveKind(qy.kind);
        } catch (e) {
          throw badRequest((e as Error).message);
        }
        let target: string;
        let instance: { id: string; name: string } | null = null;
        if (qy.new_instance) {
          if (nameTaken(qy.new_instance)) throw conflict('name_already_used', ['name']);
          target = path.resolve(mainDir(), qy.db_file ?? `${slug(qy.new_instance)}-${stamp()}.sqlite`);
          if (fs.existsSync(target)) throw conflict(`${target} already exists`, ['db_file']);
        } else {
          if (qy.db_file) throw badRequest('db_file applies to new_instance only');
          const t = localTarget(qy.instance);
          target = t.file;
          instance = t.instance;
        }
        const body = req.body as Readable | undefined;
        if (!body || typeof (body as Readable).pipe !== 'function') throw badRequest('the upload is empty: send the file as the request body');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-upload-'));
        const file = path.join(dir, 'upload');
        try {
          await pipeline(body, sizeBound(maxUpload), fs.createWriteStream(file));
        } catch (e) {
          fs.rmSync(dir, { recursive: true, force: true });
          if (e instanceof ApiError) throw e;
          throw badRequest(`the upload did not arrive whole: ${(e as Error).message}`);
        }
        if (fs.statSync(file).size === 0) {
          fs.rmSync(dir, { recursive: true, force: true });
          throw badRequest(`${qy.filename ?? 'upload'}: the file is empty`);
        }
        const label = qy.filename ?? 'upload';
        // A client that went away during the upload (the console's Cancel) gets no import: it
        // could neither watch nor cancel it. (The request stream is destroyed once read whole
        // in any case: the socket and the reply tell whether the client is still there.)
        const gone = () => reply.raw.destroyed || !!req.raw.socket?.destroyed;
        if (gone()) {
          fs.rmSync(dir, { recursive: true, force: true });
          throw badRequest('the client went away before the upload was imported');
        }
        const job = jobs.start('import', async (ctx) => {
          try {
            if (instance) ctx.setInstance(instance);
            const summary = await importInThread({
              target,
              paths: [file],
              opts: { labels: [label], kind: qy.kind, ignoreUnknown: truthy(qy.ignore_unknown), recordChanges: truthy(qy.as_changes), delimiter: qy.delimiter, encoding: qy.encoding },
              signal: ctx.signal,
              onProgress: (p) => ctx.progress({ phase: p.phase, records: p.records, bytes: p.bytes, total_bytes: p.totalBytes, file: p.file }),
            });
            if (qy.new_instance) {
              try {
                const view = await o.manager.add({ kind: 'local', name: qy.new_instance, db_file: target });
                ctx.setInstance({ id: view.id, name: view.name });
              } catch (e) {
                throw new TransferError(`imported into ${target}, but the instance could not be added: ${(e as Error).message}`, {}, e instanceof ApiError ? e.status : 400);
              }
            }
            return summary;
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        });
        if (!truthy(qy.wait)) {
          // ... and one that goes away before it has the answer (with the job's id) cancels it.
          reply.raw.on('close', () => {
            if (!reply.raw.writableFinished) job.cancel();
          });
        }
        return answerJob(reply, job, truthy(qy.wait));
      },
      { config: { streamBody: true } },
    );
  });

  // ------------------------------------------------------------------------------ jobs
  serve(app, ops.jobs_list, async () => jobs.list());
  serve(app, ops.jobs_get, async (req) => {
    const job = jobs.get(req.params.id);
    if (!job) throw notFound();
    return job.view();
  });
  serve(app, ops.jobs_cancel, async (req) => {
    const job = jobs.get(req.params.id);
    if (!job) throw notFound();
    job.cancel();
    await Promise.race([job.done, new Promise((r) => setTimeout(r, 10_000).unref())]);
    return job.view();
  });

  // ------------------------------------------------------------------------------ export
  const tickets = new ExportTickets(app.limits.exportTicketMs);
  app.addHook('onClose', async () => tickets.close());

  const exportSpec = (req: FastifyRequest, spec: ExportRequest): ExportSpec => ({
    resource: spec.resource,
    format: spec.format,
    search: spec.search,
    query: spec.query,
    columns: spec.columns,
    delimiter: spec.delimiter,
    bom: spec.bom,
    headers: spec.headers,
    withReferences: spec.with_references,
    withNames: spec.with_names,
    frontLinkBase: frontLinkBase(req),
  });

  /** Streams the export; `download` is the ticket's download it serves (followed: rows, bytes, end). */
  const runExport = async (req: FastifyRequest, reply: FastifyReply, spec: ExportRequest, download?: string) => {
    let ex: ReturnType<typeof prepareExport>;
    try {
      const { file } = localTarget(spec.instance);
      ex = prepareExport(file, exportSpec(req, spec));
    } catch (e) {
      if (download) tickets.finish(download, 'failed', (e as Error).message);
      throw e;
    }
    const controller = new AbortController();
    let rows = 0;
    let bytes = 0;
    async function* followed(): AsyncGenerator<Buffer> {
      for await (const b of ex.chunks(controller.signal, (n) => (rows = n))) {
        bytes += b.length;
        tickets.progress(download!, rows, bytes);
        yield b;
      }
    }
    const stream = Readable.from(download ? followed() : ex.chunks(controller.signal), { objectMode: false });
    // A client that goes away ends the export: the generator returns and its read transaction ends.
    const stop = () => {
      if (reply.raw.writableFinished) return;
      controller.abort();
      stream.destroy();
    };
    reply.raw.on('close', () => {
      if (download) tickets.finish(download, reply.raw.writableFinished ? 'done' : 'cancelled');
      stop();
    });
    stream.on('error', (e) => {
      if (download && !(e instanceof CancelledError)) tickets.finish(download, 'failed', e.message);
      ex.close();
    });
    stream.on('close', () => ex.close());
    if (download) {
      tickets.started(download, {
        filename: ex.filename,
        total: ex.total,
        expected: ex.rows,
        // A cancel from the console: the browser sees the download fail.
        stop: () => {
          stop();
          reply.raw.destroy();
        },
      });
    }
    return reply
      .header('content-type', ex.contentType)
      .header('content-disposition', `attachment; filename="${ex.filename}"`)
      .header('x-total-count', String(ex.total))
      .header('x-export-rows', String(ex.rows))
      .header('cache-control', 'no-store')
      .send(stream);
  };
  serve(app, ops.export, async (req, reply) => runExport(req, reply, req.body));
  serve(app, ops.export_ticket, async (req, reply) => {
    // Checked now, so that a link is only made for an export that can run.
    localTarget(req.body.instance);
    checkExport(exportSpec(req, req.body));
    const t = tickets.issue(req.body);
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send({ id: t.id, url: `${frontLinkBase(req)}${CONSOLE_URL}/export?ticket=${t.ticket}`, expires_at: t.expiresAt });
  });
  serve(app, ops.export_download_get, async (req) => {
    const v = tickets.view(req.params.id);
    if (!v) throw notFound();
    return v;
  });
  serve(app, ops.export_download_cancel, async (req) => {
    const v = tickets.cancel(req.params.id);
    if (!v) throw notFound();
    return v;
  });
  serve(app, ops.export_link, async (req, reply) => {
      const qy = req.query;
      if (qy.ticket !== undefined) {
        const others = Object.entries(qy)
          .filter(([k, v]) => k !== 'ticket' && v !== undefined)
          .map(([k]) => k);
        if (others.length) throw badRequest(`a ticket stands for the export it was made for: give it alone, without ${others.join(', ')}`);
        const r = tickets.redeem(qy.ticket);
        if (!r.ok) return sendError(reply, 401, TICKET_REFUSALS[r.why]);
        return runExport(req, reply, r.request, r.id);
      }
      if (qy.resource === undefined) throw badRequest('resource should not be empty');
      if (qy.format === undefined) throw badRequest('format should be one of json, ndjson, csv');
      let search: ExportRequest['search'];
      if (qy.search !== undefined) {
        let parsed: unknown;
        try {
          parsed = parseJson(qy.search);
        } catch (e) {
          throw badRequest(e instanceof JsonDepthError ? `search: ${e.message}` : 'search should be a JSON search request');
        }
        const res = exportSearchSchema.safeParse(parsed);
        if (!res.success) {
          const issue = res.error.issues[0]!;
          throw badRequest(`search${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`);
        }
        search = res.data;
      }
      if (search && qy.query !== undefined) throw badRequest('give either search or query, not both');
      return runExport(req, reply, {
        resource: qy.resource,
        format: qy.format,
        instance: qy.instance,
        delimiter: qy.delimiter,
        search,
        query: qy.query,
        columns: qy.columns
          ?.split(',')
          .map((c) => c.trim())
          .filter(Boolean),
        bom: qy.bom === undefined ? undefined : truthy(qy.bom),
        headers: qy.headers,
        with_references: qy.with_references === undefined ? undefined : truthy(qy.with_references),
        with_names: qy.with_names === undefined ? undefined : truthy(qy.with_names),
      });
  });

  // ------------------------------------------------------------------------------ snapshot
  serve(app, ops.snapshot, async (req, reply) => {
      const b = req.body;
      let remote: { url: string; apiKey: string; remoteInstanceId?: string | null; caFile?: string | null; pinnedSha256?: string | null; timeoutMs?: number };
      // The snapshot remembers where the origin's key is: the catalog's entry, or its own key store.
      let key: { store: string; id: string } | undefined;
      if (b.instance) {
        const info = findInstance(b.instance);
        if (info.kind !== 'remote') throw badRequest(`${info.name} is not a remote instance`);
        const row = info.row!;
        const apiKey = o.manager.catalog.vault.get(row.id);
        if (!apiKey) throw badRequest(`instance ${row.name} has no API key`);
        remote = { url: row.url!, apiKey, remoteInstanceId: row.remote_instance_id, caFile: row.ca_file, pinnedSha256: row.pinned_sha256, ...(row.timeout_ms ? { timeoutMs: Math.max(row.timeout_ms, 30_000) } : {}) };
        key = { store: o.manager.catalog.vault.file, id: row.id };
      } else {
        if (b.ca_file && !fs.existsSync(b.ca_file)) throw badRequest(`ca_file ${b.ca_file} does not exist`);
        remote = { url: b.url!.replace(/\/+$/, ''), apiKey: b.api_key!, remoteInstanceId: b.remote_instance_id, caFile: b.ca_file, pinnedSha256: b.pinned_sha256 };
      }
      const host = (() => {
        try {
          return new URL(remote.url).host;
        } catch {
          return 'remote';
        }
      })();
      const target = path.resolve(mainDir(), b.db_file ?? `snapshot-${slug(b.name ?? host)}-${stamp()}.sqlite`);
      const cp = readCheckpoint(target);
      if (fs.existsSync(target) && (!cp || cp.complete)) throw conflict(`${target} already exists${cp?.complete ? ' (a complete snapshot)' : ''}`, ['db_file']);
      const existing = b.name ? o.manager.list().find((i) => i.name === b.name) : undefined;
      if (existing && !(existing.kind === 'local' && existing.row?.db_file === target)) throw conflict('name_already_used', ['name']);
      const job = jobs.start('snapshot', async (ctx) => {
        ctx.progress({ phase: 'connecting' });
        const summary = await snapshot({
          remote,
          target,
          perPage: b.per_page,
          key,
          cipher: o.manager.catalog.vault.cipher,
          signal: ctx.signal,
          onProgress: (p) => ctx.progress({ phase: p.phase, records: p.records, file: checkpointFileOf(target), fraction: p.total ? p.records / p.total : null }),
        });
        if (b.name) {
          const have = o.manager.list().find((i) => i.name === b.name);
          const view = have ?? (await o.manager.add({ kind: 'local', name: b.name, db_file: target }));
          ctx.setInstance({ id: view.id, name: view.name });
        }
        return summary;
      });
      return answerJob(reply, job, truthy(req.query.wait));
  });
}
