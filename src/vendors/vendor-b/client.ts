import { combineRisk, mapVendorB } from '../../domain/screening/index.ts';
import { callVendor, VendorCallError, vendorUrl } from '../http.ts';
import { asObject, riskOf, type VendorClient, type VendorSettings } from '../vendor.ts';

/**
 * vendor_b, batch address screening: `POST {url}/public/v2/screening/addresses` with HTTP Basic
 * (the key as user) and `[{address, chain}]`; the answer has one element per address submitted.
 */
export function createVendorBClient(s: VendorSettings): VendorClient {
  const authorization = `Basic ${Buffer.from(`${s.key}:`).toString('base64')}`;
  return {
    name: 'vendor_b',
    async screen(address, chain) {
      const body = await callVendor({
        vendor: 'vendor_b',
        dispatcher: s.dispatcher,
        method: 'POST',
        url: vendorUrl(s.url, '/public/v2/screening/addresses'),
        headers: { authorization },
        body: [{ address, chain }],
        timeoutMs: s.timeoutMs,
      });
      const items = Array.isArray(body) ? body.map(asObject) : [];
      // Vendors echo the address, sometimes normalised: case is ignored where it does not make
      // another address (EVM hex, bech32), and only there (base58 letters differ by case). Every
      // element for the address counts (one per chain, or repeated), the worst winning, and each
      // must be readable: a finding in a second element is never dropped. An answer about another
      // address only (a mix-up at the vendor or a proxy) says nothing of this one: not clean.
      const same = sameAddress(address, chain);
      const matching = items.filter((i) => typeof i?.address === 'string' && same(i.address));
      if (matching.length === 0)
        throw new VendorCallError('vendor_b', 'answer has no element for the address', 'failure');
      return combineRisk(matching.map((item) => riskOf('vendor_b', mapVendorB(item))));
    },
  };
}

/**
 * Whether an echoed address is `address`: ignoring case for EVM hex and Bitcoin bech32 (their
 * letters' case carries nothing), exactly for base58 (Solana, Bitcoin P2PKH/P2SH), where it does.
 * Decided by the chain, not the text: a Solana address may begin with "bc1".
 */
function sameAddress(address: string, chain: string): (echoed: string) => boolean {
  const caseFree = chain === 'bitcoin' ? /^bc1/i.test(address) : chain !== 'solana';
  if (!caseFree) return (echoed) => echoed === address;
  const lower = address.toLowerCase();
  return (echoed) => echoed.toLowerCase() === lower;
}
