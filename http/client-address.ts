import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Parses one `SVC_TRUSTED_PROXIES` entry (an address or a CIDR); throws naming it when it is neither. */
export function parseTrustedProxy(entry: string): Range {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return [normalised(address), normalised(address).kind() === address.kind() ? bits : bits - 96];
    }
    const address = normalised(ipaddr.parse(entry));
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new Error(`"${entry}" is neither an IP address nor a CIDR range`);
  }
}

/** IPv4-mapped IPv6 (what a dual-stack socket reports) as the IPv4 address it carries. */
function normalised(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/** The address in `text` (uWS writes IPv6 in full, zero-padded), or null when it is not one. */
function parseAddress(text: string): Address | null {
  if (!ipaddr.isValid(text)) return null;
  return normalised(ipaddr.parse(text));
}

/** The `for=` addresses of a `Forwarded` header (RFC 7239), nearest hop last, quotes, brackets and ports removed. */
export function forwardedFor(header: string): string[] {
  const out: string[] = [];
  for (const element of header.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
      let value = pair
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (value.startsWith('[')) value = value.slice(1, value.indexOf(']'));
      else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.indexOf(':'));
      out.push(value);
    }
  }
  return out;
}

/**
 * Who a request comes from. Forwarding headers are believed only from trusted peers, walked back
 * from the nearest hop while each hop is trusted, the way nginx's `real_ip_recursive on` does: the
 * first untrusted address from the right is the client. `X-Forwarded-For` is read, else
 * `Forwarded`. With no trusted proxies (the default) the peer is the client and no header is read.
 */
export function createClientAddress(
  trusted: readonly string[],
): (peer: string, headers: Readonly<Record<string, string>>) => string {
  if (trusted.length === 0) return (peer) => peer;
  const ranges = trusted.map(parseTrustedProxy);
  const isTrusted = (address: Address) =>
    ranges.some(([range, bits]) =>
      address instanceof ipaddr.IPv4
        ? range instanceof ipaddr.IPv4 && address.match(range, bits)
        : range instanceof ipaddr.IPv6 && address.match(range, bits),
    );
  return (peer, headers) => {
    let client = parseAddress(peer);
    if (!client) return peer;
    if (!isTrusted(client)) return client.toString();
    const xff = headers['x-forwarded-for'];
    const hops = xff !== undefined ? xff.split(',') : headers.forwarded ? forwardedFor(headers.forwarded) : [];
    for (let i = hops.length - 1; i >= 0 && isTrusted(client); i--) {
      const hop = parseAddress(hops[i]!.trim());
      // An unparsable hop ("unknown", an obfuscated name) ends the walk at the last address known.
      if (!hop) break;
      client = hop;
    }
    return client.toString();
  };
}
