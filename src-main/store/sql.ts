// Identifier quoting. Identifiers come only from the resource registry, never from input;
// quoting still keeps names such as `user` or the Cyrillic `с_customer_retention_time` legal.
export const q = (ident: string): string => `"${ident.replace(/"/g, '""')}"`;

/** `?, ?, ?` for n bound values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
