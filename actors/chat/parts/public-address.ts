import { isIP } from 'node:net';

/** IPv4 ranges that are no public internet host: this-network, private, CGNAT, loopback, link-local, test, multicast, reserved. */
const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/** IPv6 ranges blocked outright: discard, local NAT64, Teredo, documentation, ULA, link- and site-local, multicast. */
const BLOCKED_V6: [string, number][] = [
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

/** IPv6 ranges that carry an IPv4 address, checked as that address: mapped, NAT64, 6to4, compatible. */
const EMBEDDING_V6: [string, number, number][] = [
  ['::ffff:0:0', 96, 12],
  ['64:ff9b::', 96, 12],
  ['2002::', 16, 2],
  ['::', 96, 12],
];

function parseV4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

function parseV6(input: string): Uint8Array | null {
  let text = input.split('%')[0]!; // zone id
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(Math.max(0, missing)).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  for (const [i, group] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  }
  return bytes;
}

function inV4(address: number, [base, bits]: [string, number]): boolean {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (address & mask) >>> 0 === (parseV4(base)! & mask) >>> 0;
}

function inV6(address: Uint8Array, base: string, bits: number): boolean {
  const prefix = parseV6(base)!;
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((address[bit / 8]! & mask) !== (prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

function isPublicV4(address: number): boolean {
  return !BLOCKED_V4.some((range) => inV4(address, range));
}

function isPublicV6(address: Uint8Array): boolean {
  if (address.every((byte, i) => byte === 0 || (i === 15 && byte === 1))) return false; // :: and ::1
  if (BLOCKED_V6.some(([base, bits]) => inV6(address, base, bits))) return false;
  for (const [base, bits, at] of EMBEDDING_V6) {
    if (inV6(address, base, bits))
      return isPublicV4(
        ((address[at]! << 24) | (address[at + 1]! << 16) | (address[at + 2]! << 8) | address[at + 3]!) >>> 0,
      );
  }
  return true;
}

/**
 * Whether an IP address is a public internet host: false for loopback, private, link-local,
 * CGNAT, multicast, documentation and reserved ranges, IPv4 and IPv6 (IPv4-mapped, NAT64 and
 * 6to4 addresses are judged by the IPv4 address inside). Anything unparseable counts as not public.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return isPublicV4(parseV4(address)!);
  if (family === 6) {
    const bytes = parseV6(address);
    return bytes !== null && isPublicV6(bytes);
  }
  return false;
}
