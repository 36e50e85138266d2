// Which addresses a webhook may be sent to. Parsing IPs to bytes (rather than matching strings) means
// every spelling of an address — `::ffff:127.0.0.1`, `::ffff:7f00:1`, `0:0:0:0:0:0:0:1` — is judged alike.
import { isIP } from 'node:net';

/** The 4 or 16 bytes of an IPv4 or IPv6 literal (no brackets, zone id ignored), or null. */
export function parseIp(text: string): Uint8Array | null {
  const s = text.replace(/%.*$/, '');
  const kind = isIP(s);
  if (kind === 4) return Uint8Array.from(s.split('.').map(Number));
  if (kind !== 6) return null;
  let head = s;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = s
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    head = s.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1); // keep `::` in `::1.2.3.4`, drop the lone ':' otherwise
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const words = (p: string | undefined) =>
    p
      ? p
          .split(':')
          .filter((x) => x !== '')
          .map((h) => parseInt(h, 16))
      : [];
  const l = words(left);
  const r = words(right);
  const fill = 8 - l.length - r.length - tail.length;
  const all = right === undefined ? [...l, ...tail] : [...l, ...new Array(fill).fill(0), ...r, ...tail];
  if (all.length !== 8) return null;
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

export type Cidr = { bytes: Uint8Array; prefix: number };

/** `10.0.0.0/8`, `fc00::/7` or a bare address (a /32 or /128). Throws on nonsense so bad configuration is loud. */
export function parseCidr(text: string): Cidr {
  const [addr, len] = text.trim().split('/');
  const bytes = parseIp(addr.replace(/^\[|\]$/g, ''));
  if (!bytes) throw new Error(`not an IP range: ${text}`);
  const max = bytes.length * 8;
  const prefix = len === undefined ? max : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`bad prefix length in ${text}`);
  return { bytes, prefix };
}

export function inCidr(ip: Uint8Array, cidr: Cidr): boolean {
  if (ip.length !== cidr.bytes.length) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip[i] & mask) !== (cidr.bytes[i] & mask)) return false;
  }
  return true;
}

// IANA special-purpose registries: none of these is a public internet host.
const NON_GLOBAL_V4 = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes the broadcast address 255.255.255.255
].map(([c, why]) => ({ cidr: parseCidr(c), why }));

const NON_GLOBAL_V6 = [
  ['::/96', 'unspecified, loopback or IPv4-compatible'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments (Teredo, ORCHID, …)'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
].map(([c, why]) => ({ cidr: parseCidr(c), why }));

const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');
const MAPPED_V4 = parseCidr('::ffff:0:0/96');
const NAT64_V4 = parseCidr('64:ff9b::/96');

/** Why an address is not a public internet address (e.g. 'loopback'), or null when it is global. Unparseable → 'invalid'. */
export function nonGlobalReason(address: string): string | null {
  const ip = parseIp(address.replace(/^\[|\]$/g, ''));
  if (!ip) return 'invalid address';
  if (ip.length === 4) return NON_GLOBAL_V4.find((r) => inCidr(ip, r.cidr))?.why ?? null;
  // An IPv4 address wrapped in IPv6 reaches that IPv4 host: judge the IPv4 address.
  if (inCidr(ip, MAPPED_V4) || inCidr(ip, NAT64_V4)) {
    const why = nonGlobalReason(Array.from(ip.slice(12)).join('.'));
    return why && `IPv4-in-IPv6 ${why}`;
  }
  const special = NON_GLOBAL_V6.find((r) => inCidr(ip, r.cidr));
  if (special) return special.why;
  return inCidr(ip, GLOBAL_UNICAST_V6) ? null : 'not global unicast';
}

/** True when `address` falls in one of the allow-listed ranges. */
export function inAnyCidr(address: string, cidrs: readonly Cidr[]): boolean {
  const ip = parseIp(address.replace(/^\[|\]$/g, ''));
  return !!ip && cidrs.some((c) => inCidr(ip, c));
}
