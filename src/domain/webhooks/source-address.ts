import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a webhook sender's failed signatures are counted under: its IPv4 address, or the /64
 * network of its IPv6 address (one host is handed a whole /64: counted per address, every forged
 * delivery could come from a fresh one). IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function sourceKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return ipv6Prefix64(ip) ?? ip;
}

/** The first 64 bits of an IPv6 address as `a:b:c:d::/64`, or undefined when it does not read. */
function ipv6Prefix64(ip: string): string | undefined {
  let s = ip.split('%')[0]!.toLowerCase();
  // A dotted IPv4 tail (64:ff9b::192.0.2.1) is the last two groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const given = halves.flatMap((h) => (h ? h.split(':') : []));
  if (given.length > (halves.length === 2 ? 7 : 8)) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const groups =
    halves.length === 2
      ? [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail]
      : head;
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
