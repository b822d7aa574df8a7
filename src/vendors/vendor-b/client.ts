import { mapVendorB } from '../../domain/screening/index.ts';
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
      // Vendors echo the address, sometimes normalised: match it case-insensitively, else take the only one.
      const mine =
        items.find(
          (i) => typeof i?.address === 'string' && i.address.toLowerCase() === address.toLowerCase(),
        ) ?? (items.length === 1 ? items[0] : undefined);
      if (!mine) throw new VendorCallError('vendor_b', 'answer has no element for the address', 'failure');
      return riskOf('vendor_b', mapVendorB(mine));
    },
  };
}
