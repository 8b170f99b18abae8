// Network interfaces as the services scan reads them: the first interface recorded with an
// address (its id, MAC and operating system go into the scan's answer).
import type { Store } from '../store';

export function interfaceByIp(store: Store, ip: string): { id: string; mac: string | null; os: string | null } | undefined {
  return store.get1<{ id: string; mac: string | null; os: string | null }>(`SELECT id, mac, os FROM network_interfaces WHERE ip = ? ORDER BY _rid LIMIT 1`, [ip]);
}
