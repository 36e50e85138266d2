// Preloaded (--import) into a child process and inherited by its worker threads: any attempt to reach the
// network is recorded on stderr and fails.
import net from 'node:net';
import dns from 'node:dns';
import { threadId } from 'node:worker_threads';

const report = (what) => {
  process.stderr.write(`NETWORK-ATTEMPT ${what} (thread ${threadId})\n`);
};
const origConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const opts = args[0];
  // Local IPC (pipes) is not network.
  if (typeof opts === 'object' && opts && opts.path) return origConnect.apply(this, args);
  if (typeof opts === 'string' && !/^\d+$/.test(opts)) return origConnect.apply(this, args);
  report(`connect ${JSON.stringify(opts)}`);
  throw new Error('network access is not allowed in this test');
};
dns.lookup = (host, ...rest) => {
  report(`dns ${host}`);
  const cb = rest.find((a) => typeof a === 'function');
  if (cb) cb(new Error('dns not allowed'));
};
globalThis.fetch = async (url) => {
  report(`fetch ${String(url)}`);
  throw new Error('fetch not allowed');
};
