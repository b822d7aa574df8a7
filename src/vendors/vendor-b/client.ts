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
      // Vendors echo the address, sometimes normalised: it is matched case-insensitively. Every
      // element for the address counts (one per chain, or repeated), the worst winning, and each
      // must be readable: a finding in a second element is never dropped. An answer about another
      // address only (a mix-up at the vendor or a proxy) says nothing of this one: not clean.
      const matching = items.filter(
        (i) => typeof i?.address === 'string' && i.address.toLowerCase() === address.toLowerCase(),
      );
      if (matching.length === 0)
        throw new VendorCallError('vendor_b', 'answer has no element for the address', 'failure');
      return combineRisk(matching.map((item) => riskOf('vendor_b', mapVendorB(item))));
    },
  };
}
