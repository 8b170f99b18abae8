// Value lists named both by the schemas and by the command line's flags. Plain constants, no
// schema: the command line reads them to declare its flags without building any schema.

/** Export file formats. */
export const EXPORT_FORMATS = ['json', 'ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** CSV field separators an export takes (and an import detects). */
export const CSV_DELIMITERS = [',', ';', '\t'] as const;

/** Text encodings a CSV import reads (detected when not given). */
export const CSV_ENCODINGS = ['utf-8', 'windows-1251'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

/** A CSV export's header row: the fields' API names, or the console's column names in English or Russian. */
export const CSV_HEADERS = ['fields', 'en', 'ru'] as const;
export type CsvHeaders = (typeof CSV_HEADERS)[number];

/** States of an outbox entry (a change waiting to reach its platform). */
export const ENTRY_STATES = ['pending', 'sending', 'conflict', 'failed'] as const;
export type EntryStateName = (typeof ENTRY_STATES)[number];

/** How a conflict is resolved: the local change, the platform's record, or an edited record. */
export const RESOLUTIONS = ['mine', 'theirs', 'edit'] as const;
