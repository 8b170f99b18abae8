// Opening a database: the connection (connection.ts) and the migrations.
import { openConnection, type Db, type OpenOptions } from './connection';
import { migrate } from './migrations';

export { fold, isBusy, openConnection, type Db, type OpenOptions } from './connection';

export function openDatabase(file: string, opts: OpenOptions = {}): { db: Db; created: boolean } {
  const opened = openConnection(file, opts);
  if (!opts.readonly) {
    try {
      migrate(opened.db);
    } catch (e) {
      opened.db.close();
      throw e;
    }
  }
  return opened;
}
