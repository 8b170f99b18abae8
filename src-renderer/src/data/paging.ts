// How the incident list reads its rows: the page size, the pages read ahead of the viewport, and
// the rows asked first (its viewport at any height, before the table is measured). Shared by the
// list's source and the opening's first request (data/opening.ts), which must ask the same.

export const PAGE_SIZE = 100;
export const READ_AHEAD = 2;
export const FIRST_ROWS = 60;

/** How many rows the first read of a list asks: the pages under its first rows and the ones read ahead, in one request. */
export const FIRST_READ = (Math.ceil(FIRST_ROWS / PAGE_SIZE) + READ_AHEAD) * PAGE_SIZE;
