// The housekeeping tasks work through what they clear in batches, one transaction each, so a long backlog never holds
// one long transaction; a batch that comes back short was the last.

/** Runs `batch(size)` until it handles fewer than `size` rows; returns how many all the batches handled. */
export async function untilShortBatch(size: number, batch: (size: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await batch(size);
    total += n;
    if (n < size) return total;
  }
}
