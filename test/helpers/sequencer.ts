// The order in which vitest hands out the files of a run: the longest first, so that no long file
// starts last and runs alone on one core while the other waits. Vitest's own order runs the
// projects one after another (http, then process, then unit) and, within one, the files it timed
// in an earlier run longest first (larger files first when it has no timing, as on a fresh clone).
// Here the files known to be long (LONG, longest first) go first whatever their project; the
// others follow in vitest's order. `sequence.groupOrder` (the kill project after the others)
// still comes before all of this.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files of `npm test`, longest first (from vitest's JSON report, reports/vitest.json). */
export const LONG = [
  'test/http/openapi-tools.test.ts',
  'test/http/csv-transfer.test.ts',
  'test/http/openapi-typescript.test.ts',
  'test/http/transfer.test.ts',
  'test/http/sync-faults.test.ts',
  'test/unit/textsearch-postgres.test.ts',
  'test/http/incident-bulk.test.ts',
  'test/http/transfer-cli.test.ts',
  'test/http/cli.test.ts',
  'test/unit/transfer-import.test.ts',
  'test/http/sync-cli.test.ts',
  'test/http/cli-commands.test.ts',
  'test/http/cli-package.test.ts',
  'test/http/openapi-traffic.test.ts',
  'test/http/kill.test.ts',
  'test/http/cookbook.test.ts',
  'test/http/resources.test.ts',
  'test/http/idle.test.ts',
  'test/http/load.test.ts',
  'test/http/instances.test.ts',
  'test/http/public.test.ts',
  'test/http/sync.test.ts',
  'test/unit/transfer-csv.test.ts',
  'test/unit/store.test.ts',
  'test/unit/transfer-export.test.ts',
  'test/http/kept-counts.test.ts',
  'test/http/fuzz.test.ts',
];

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification): number => {
      const i = LONG.indexOf(f.moduleId.slice(root.length + 1));
      return i < 0 ? LONG.length : i;
    };
    const order = new Map(base.map((f, i) => [f, i]));
    return [...base].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b) || order.get(a)! - order.get(b)!,
    );
  }
}
