// Wake-ups from Postgres NOTIFY: one dedicated connection per process and channel LISTENs (from the first watch),
// and each watcher of a key (e.g. an analysis id) is woken when a notification carries that key. A lost
// connection only makes watchers wait their timeout (they re-check the row then), and the next watch reconnects.
import pg from 'pg';

/** One key's watch: `next(ms)` resolves at the next notification of the key (or one already received) or after `ms`. */
export interface Watch {
  next(ms: number): Promise<void>;
  close(): void;
}

export interface Notices {
  watch(key: string): Watch;
  close(): Promise<void>;
}

export function listenFor(config: pg.ClientConfig, channel: string): Notices {
  const watchers = new Map<string, Set<{ wake(): void }>>();
  let client: pg.Client | undefined;
  let closed = false;

  const connect = () => {
    if (client || closed) return;
    const c = new pg.Client({ ...config, application_name: `svc-listen-${channel}` });
    client = c;
    const drop = () => {
      if (client === c) client = undefined;
      c.end().catch(() => {});
    };
    c.on('error', drop);
    c.on('end', () => client === c && (client = undefined));
    c.on('notification', (n) => {
      if (n.channel !== channel || !n.payload) return;
      for (const w of watchers.get(n.payload) ?? []) w.wake();
    });
    c.connect()
      .then(() => c.query(`listen ${pg.Client.prototype.escapeIdentifier(channel)}`))
      .catch(drop);
  };

  return {
    watch(key) {
      connect();
      let pending = false;
      let resolve: (() => void) | undefined;
      const w = {
        wake: () => {
          if (resolve) resolve();
          else pending = true;
        },
      };
      let set = watchers.get(key);
      if (!set) watchers.set(key, (set = new Set()));
      set.add(w);
      return {
        next: (ms) => {
          if (pending) {
            pending = false;
            return Promise.resolve();
          }
          return new Promise<void>((done) => {
            const timer = setTimeout(() => finish(), ms);
            const finish = () => {
              clearTimeout(timer);
              resolve = undefined;
              done();
            };
            resolve = finish;
          });
        },
        close: () => {
          set.delete(w);
          if (set.size === 0) watchers.delete(key);
          resolve?.();
        },
      };
    },
    async close() {
      closed = true;
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
