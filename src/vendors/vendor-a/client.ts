import { emptyRisk, mapVendorA } from '../../domain/screening/index.ts';
import { callVendor, NO_DATA, vendorUrl } from '../http.ts';
import { riskOf, type VendorClient, type VendorSettings } from '../vendor.ts';

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
      if (body === NO_DATA) return emptyRisk();
      // A 200 without a readable list (`null` too) is not "clean": it fails, naming the field
      // (risk-vendors.ts).
      return riskOf('vendor_a', mapVendorA(body));
    },
  };
}
