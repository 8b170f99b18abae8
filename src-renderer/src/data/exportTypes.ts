// What a view exports and where to (types only, so the stores can name them without importing
// the export machinery).
import type { CSV_DELIMITERS, CsvHeaders, ExportSearch } from '../../../src-shared/schemas/transfer';

export interface ExportColumn {
  id: string;
  label: string;
}

export interface ExportSource {
  /** A resource of the registry, or a public list (incidents, findings, serviceAssets) with `query`. */
  resource: string;
  search?: ExportSearch;
  query?: string;
  /** Columns a CSV of this export can have, in the table's order. */
  columns: ExportColumn[];
  /** The columns on screen (the CSV's default), in order. */
  visible: string[];
  /** What is exported, for the progress line ("Incidents"). */
  title: string;
}

export interface ExportTarget {
  /** 'main' or an instance id. */
  id: string;
  name: string;
  /** Local instances export; remote ones need a snapshot first. */
  exportable: boolean;
}

export type Delimiter = (typeof CSV_DELIMITERS)[number];

export interface CsvOptions {
  columns: string[];
  delimiter: Delimiter;
  bom: boolean;
  /** A column with the name beside each id the list shows as a name (with_names). */
  names: boolean;
  /** The header row: field names, or the console's column names in a language. */
  headers: CsvHeaders;
}

