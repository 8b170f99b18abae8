// POST /sonar/services/scan: TCP connect discovery of the configured ports, answered as
// ServicesScanResult under `_`.
import crypto from 'node:crypto';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { scanOperations } from '../../../src-shared/contract/index';
import { badRequest, ERR } from '../../../src-shared/errors';
import { nowTs } from '../../../src-shared/time';
import { probeAll, SERVICE_NAMES } from '../../scan/probe';
import { interfaceByIp } from '../../store/kinds/network-interface';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

export function registerScan(app: FastifyInstance, deps: ApiDeps): void {
  for (const op of scanOperations()) {
    serve(app, op, async (req) => {
      const ips = req.body?.ips;
      if (!ips || ips.length === 0) throw badRequest(ERR.emptyIps);
      if (ips.some((ip) => ip.trim() === '')) throw badRequest(ERR.emptyIp);
      const hosts = [...new Set(ips.map((ip) => ip.trim()))];
      const valid = hosts.filter((ip) => net.isIP(ip) !== 0);
      const states = await probeAll(valid, deps.scan);
      const store = deps.store();
      const at = nowTs();
      const results = hosts.map((ip) => {
        const family = net.isIP(ip);
        const ni = interfaceByIp(store, ip);
        const base = { ipv4: family === 4 ? ip : '', ipv6: family === 6 ? ip : '', mac: ni?.mac ?? '', os: ni?.os ?? '' };
        if (family === 0) return { ...base, services: [], error_code: 400, error: `invalid IP address: ${ip}` };
        const skipped = deps.scan.ports.filter((p) => states.get(`${ip}|${p}`) === 'skipped').length;
        const services = deps.scan.ports
          .filter((p) => states.get(`${ip}|${p}`) === 'open')
          .map((port) => ({
            id: crypto.randomUUID(),
            created_at: at,
            updated_at: at,
            network_interface_id: ni?.id ?? '',
            port,
            status: 'open',
            type: 'tcp',
            name: SERVICE_NAMES[port] ?? '',
            version: '',
            cpe: '',
          }));
        return skipped
          ? { ...base, services, error_code: 504, error: `scan time budget exceeded: ${skipped} of ${deps.scan.ports.length} ports not probed` }
          : { ...base, services, error_code: 0, error: '' };
      });
      return { _: results };
    });
  }
}
