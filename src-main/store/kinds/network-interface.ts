// Network interfaces as the services scan reads them: the first interface recorded with an
// address (its id, MAC and operating system go into the scan's answer).
import { networkInterfaces } from '../../../src-shared/resources/network_interfaces';
import { q } from '../sql';
import type { Statements } from '../statements';

/** The declaration. */
export const NETWORK_INTERFACES = networkInterfaces;

export function interfaceByIp(store: Statements, ip: string): { id: string; mac: string | null; os: string | null } | undefined {
  return store.get1<{ id: string; mac: string | null; os: string | null }>(`SELECT id, mac, os FROM ${q(networkInterfaces.table)} WHERE ip = ? ORDER BY _rid LIMIT 1`, [ip]);
}
