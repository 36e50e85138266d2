// pdf.js's API and its worker code in one thread (a PDF worker of pool.ts), joined by a pair of ports.
//
// Without a worker script pdf.js joins the two with its LoopbackPort, which structured-clones every message
// both ways. For reading text that clone was the largest single cost of a page (about 15% of the thread's CPU,
// and more in garbage): every text run of every page copied once, to be read once. These ports clone as the
// LoopbackPort does, except a chunk of text content: pdf.js builds a fresh `items` array and `styles` object
// for each chunk and never touches them again once sent (it points its chunk object at new ones for the next
// chunk), so the chunk object is copied and its items handed over as they are. Operator lists are cloned:
// pdf.js empties their arrays in place after sending them. A message of primitives only (a stream's pull or
// its completion, a few per page) is copied field by field, which is what a clone of it makes.

type Listener = (event: { data: unknown }) => void;

/** pdf.js's stream-message kind for a chunk (`StreamKind.ENQUEUE` in its message handler). */
const ENQUEUE = 4;

/** A plain object whose every own value is a string, number, boolean, null or undefined. */
function isFlat(message: unknown): message is Record<string, unknown> {
  if (!message || typeof message !== 'object' || Object.getPrototypeOf(message) !== Object.prototype) return false;
  for (const key in message) {
    const v = (message as Record<string, unknown>)[key];
    if (v !== null && typeof v === 'object') return false;
    if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return false;
  }
  return true;
}

/** A text-content chunk on its way from pdf.js's worker code: `{ items, styles, lang }`, no operator list. */
function isTextChunk(message: unknown): boolean {
  const m = message as { stream?: unknown; chunk?: { items?: unknown; styles?: unknown; fnArray?: unknown } } | null;
  return !!m && m.stream === ENQUEUE && !!m.chunk && Array.isArray(m.chunk.items) && typeof m.chunk.styles === 'object' && !('fnArray' in m.chunk);
}

class Port {
  peer?: Port;
  readonly #listeners = new Map<Listener, (() => void) | undefined>();
  #deferred = Promise.resolve();

  postMessage(message: unknown, transfer?: Transferable[]): void {
    const data = isTextChunk(message)
      ? { ...(message as object), chunk: { ...(message as { chunk: object }).chunk } }
      : !transfer?.length && isFlat(message)
        ? { ...message }
        : structuredClone(message, transfer ? { transfer } : undefined);
    const peer = this.peer!;
    // Delivered later, in order, as a port's messages are (the LoopbackPort's own timing).
    this.#deferred.then(() => {
      for (const listener of [...peer.#listeners.keys()]) listener.call(peer, { data });
    });
  }

  addEventListener(_name: string, listener: Listener, options?: { signal?: AbortSignal } | null): void {
    const signal = options?.signal;
    if (signal?.aborted) return;
    let off: (() => void) | undefined;
    if (signal) {
      const onAbort = () => this.removeEventListener(_name, listener);
      signal.addEventListener('abort', onAbort);
      off = () => signal.removeEventListener('abort', onAbort);
    }
    this.#listeners.set(listener, off);
  }

  removeEventListener(_name: string, listener: Listener): void {
    this.#listeners.get(listener)?.();
    this.#listeners.delete(listener);
  }

  terminate(): void {
    for (const off of this.#listeners.values()) off?.();
    this.#listeners.clear();
  }
}

/** Two ports, each delivering what is posted to it to the other's listeners. */
export function portPair(): [Port, Port] {
  const a = new Port();
  const b = new Port();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
