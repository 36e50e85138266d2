// A pool worker for test/pipelines/documents/pool_memory.test.ts: keeps `keepMb` of buffers per task (as a library
// holding on to a large document's data would) and reports its memory the way the PDF worker does.
import { parentPort, threadId } from 'node:worker_threads';
import v8 from 'node:v8';

const kept = [];
parentPort.on('message', (req) => {
  kept.push(Buffer.alloc(req.keepMb * 1024 * 1024, 1));
  const h = v8.getHeapStatistics();
  parentPort.postMessage({ ok: true, value: threadId, memoryMb: Math.round((h.used_heap_size + (h.external_memory ?? 0)) / 1024 / 1024) });
});
