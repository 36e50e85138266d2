// A small worker_threads pool: fixed size (cores by default), one task per worker at a time, a time-out
// per task (the worker is terminated and replaced), and recycling after N tasks so memory stays flat.
import { Worker } from 'node:worker_threads';
import os from 'node:os';

interface Task {
  msg: unknown;
  transfer: ArrayBuffer[];
  timeoutMs: number;
  /** Called with each partial result the worker posts before its reply (`{ partial }` messages). */
  onPartial?: (value: unknown) => void;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: Task | undefined;
  done: number;
  timer: NodeJS.Timeout | undefined;
}

export interface PoolOptions {
  size?: number;
  /** Tasks a worker runs before it is replaced (frees whatever the libraries kept). */
  recycleAfter?: number;
  maxOldGenerationSizeMb?: number;
  /**
   * A worker reporting more memory than this after a task (`memoryMb` in its reply: its heap and the buffers it holds)
   * is replaced, so what one large document left behind does not stay for the next (default 512).
   */
  recycleAboveMb?: number;
  /** Node flags for the workers (default: the parent's). */
  execArgv?: string[];
}

export class WorkerPool {
  readonly size: number;
  private slots: Slot[] = [];
  private queue: Task[] = [];
  private closed = false;
  /** Workers replaced after a task (their count or their memory), for tests and metrics. */
  recycled = 0;
  private readonly url: URL;
  private readonly opts: Required<Omit<PoolOptions, 'execArgv'>> & { execArgv?: string[] };

  constructor(url: URL, opts: PoolOptions = {}) {
    this.url = url;
    this.size = Math.max(1, opts.size ?? os.availableParallelism());
    this.opts = {
      size: this.size,
      recycleAfter: opts.recycleAfter ?? 100,
      recycleAboveMb: opts.recycleAboveMb ?? 512,
      maxOldGenerationSizeMb: opts.maxOldGenerationSizeMb ?? 768,
      execArgv: opts.execArgv,
    };
  }

  /** Run one message on a free worker; rejects on error, crash or time-out. */
  /** Workers free for a new task now (not busy, and no task waiting for them). */
  idle(): number {
    return Math.max(0, this.size - this.slots.filter((s) => s.busy).length - this.queue.length);
  }

  run<T>(msg: unknown, transfer: ArrayBuffer[] = [], timeoutMs = 60_000, onPartial?: (value: unknown) => void): Promise<T> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ msg, transfer, timeoutMs, onPartial, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  private spawn(): Slot {
    const worker = new Worker(this.url, {
      resourceLimits: { maxOldGenerationSizeMb: this.opts.maxOldGenerationSizeMb },
      ...(this.opts.execArgv ? { execArgv: this.opts.execArgv } : {}),
    });
    worker.unref();
    const slot: Slot = { worker, busy: undefined, done: 0, timer: undefined };
    worker.on(
      'message',
      (m: {
        ok: boolean;
        value?: unknown;
        partial?: unknown;
        error?: { message: string; name: string; reason?: string; code?: string; details?: string };
        memoryMb?: number;
      }) => {
        const task = slot.busy;
        if (!task) return;
        if ('partial' in m) {
          task.onPartial?.(m.partial);
          return;
        }
        this.finish(slot, (m.memoryMb ?? 0) > this.opts.recycleAboveMb);
        if (m.ok) task.resolve(m.value);
        else task.reject(Object.assign(new Error(m.error?.message ?? 'worker failed'), m.error));
      },
    );
    const onDeath = (err: Error) => {
      const task = slot.busy;
      this.remove(slot);
      if (task) task.reject(err);
      this.pump();
    };
    worker.on('error', onDeath);
    worker.on('exit', (code) => onDeath(new Error(`worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot, overMemory = false) {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.busy = undefined;
    slot.done++;
    if (slot.done >= this.opts.recycleAfter || overMemory) {
      this.recycled++;
      this.remove(slot);
      void slot.worker.terminate();
    }
    queueMicrotask(() => this.pump());
  }

  private remove(slot: Slot) {
    if (slot.timer) clearTimeout(slot.timer);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.on('exit', () => {});
  }

  private pump() {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const task = this.queue.shift()!;
      slot.busy = task;
      slot.worker.ref();
      const s = slot;
      s.timer = setTimeout(() => {
        this.remove(s);
        void s.worker.terminate();
        task.reject(new Error(`worker task timed out after ${task.timeoutMs} ms`));
        this.pump();
      }, task.timeoutMs);
      s.worker.postMessage(task.msg, task.transfer);
      // A worker holds the event loop only while it has work.
      const unrefWhenIdle = () => {
        if (!s.busy) s.worker.unref();
      };
      task.resolve = wrapAfter(task.resolve, unrefWhenIdle);
      task.reject = wrapAfter(task.reject, unrefWhenIdle);
    }
  }

  /** Terminate every worker; queued tasks are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new Error('worker pool closed'));
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map((s) => {
        s.worker.removeAllListeners('exit');
        return s.worker.terminate();
      }),
    );
  }
}

function wrapAfter<A extends unknown[]>(fn: (...a: A) => void, after: () => void): (...a: A) => void {
  return (...a: A) => {
    fn(...a);
    after();
  };
}
