// Computed fields of records loaded through a relation are the same as when the record is read
// on its own (their SQL is rewritten to the related rows' alias).
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { seedDemo } from '../../src-main/store/seed';
import { Store } from '../../src-main/store/store';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { Runner } from '../../src-main/store/query/runner';

describe('computed fields through relations', () => {
  const store = new Store(openDatabase(':memory:').db);
  seedDemo(store, { scale: 0.3 });
  const incidents = getResource('service_asset_findings');
  const assets = getResource('service_assets');
  const interfaces = getResource('network_interfaces');

  it('an incident page loading service_asset carries the asset exactly as GET reads it', () => {
    const page = new Runner(store).search(incidents, { ...emptySearch(40), relations: ['service_asset'] });
    const withAsset = page.items.filter((i) => i.service_asset);
    expect(withAsset.length).toBeGreaterThan(5);
    for (const inc of withAsset) {
      const loaded = inc.service_asset as Record<string, unknown>;
      const direct = store.find(assets, loaded.id as string)!;
      expect(loaded).toEqual(direct);
    }
    // The counts differ between assets, so a wrong correlation (every asset the same) shows.
    const counts = new Set(withAsset.map((i) => (i.service_asset as Record<string, unknown>).all_open_count));
    expect(counts.size).toBeGreaterThan(1);
  });

  it('an asset loading network_interfaces carries their computed asset fields', () => {
    const page = new Runner(store).search(assets, { ...emptySearch(20), relations: ['network_interfaces'] });
    const nis = page.items.flatMap((a) => a.network_interfaces as Record<string, unknown>[]);
    expect(nis.length).toBeGreaterThan(0);
    for (const ni of nis) expect(ni).toEqual(store.find(interfaces, ni.id as string));
  });
});
