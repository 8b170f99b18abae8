// The rows of an order noted for keyset paging (keyset.ts): positions and sort keys, kept per
// matched set and order while the data does not change (Statements.anchors).

/** A row's position in the order and its sort key values. */
export interface Anchor {
  pos: number;
  key: unknown[];
}

/** Rows of one order noted, by position (a few dozen at most, the latest kept). */
export class Anchors {
  private readonly byPos = new Map<number, unknown[]>();

  constructor(private readonly max = 64) {}

  note(pos: number, key: unknown[]): void {
    this.byPos.delete(pos);
    this.byPos.set(pos, key);
    if (this.byPos.size > this.max) this.byPos.delete(this.byPos.keys().next().value!);
  }

  /** The noted row nearest at or before `pos`. */
  nearest(pos: number): Anchor | undefined {
    let best: Anchor | undefined;
    for (const [p, key] of this.byPos) if (p <= pos && (!best || p > best.pos)) best = { pos: p, key };
    return best;
  }
}
