import { emptyRisk, mapVendorA } from '../../domain/screening/index.ts';
import { callVendor, VendorCallError, vendorUrl } from '../http.ts';
import { asObject, type VendorClient, type VendorSettings } from '../vendor.ts';

/**
 * vendor_a, single-address sanctions lookup: `GET {url}/api/v1/address/{address}` with
 * `X-API-Key`; `{identifications: [...]}` (empty = clean); a 404 means the vendor has no data.
 */
export function createVendorAClient(s: VendorSettings): VendorClient {
  return {
    name: 'vendor_a',
    async screen(address) {
      const body = await callVendor({
        vendor: 'vendor_a',
        dispatcher: s.dispatcher,
        method: 'GET',
        url: vendorUrl(s.url, `/api/v1/address/${encodeURIComponent(address)}`),
        headers: { 'x-api-key': s.key },
        timeoutMs: s.timeoutMs,
        notFoundIsNoData: true,
      });
      if (body === null) return emptyRisk();
      // A 200 without the list is not "clean": treating it so would let a broken answer pass a wallet.
      if (!Array.isArray(asObject(body)?.identifications))
        throw new VendorCallError('vendor_a', 'answer has no identifications list', 'failure');
      return mapVendorA(body);
    },
  };
}
