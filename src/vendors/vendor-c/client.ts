import { mapVendorC } from '../../domain/screening/index.ts';
import { callVendor, vendorUrl } from '../http.ts';
import { riskOf, type VendorClient, type VendorSettings } from '../vendor.ts';

/**
 * vendor_c, wallet risk scoring: `POST {url}/v2/wallet/synchronous` with a bearer key and a
 * `wallet_exposure` request for the address; `risk_score` 0–10 or null, exposures per category.
 */
export function createVendorCClient(s: VendorSettings): VendorClient {
  const authorization = `Bearer ${s.key}`;
  return {
    name: 'vendor_c',
    async screen(address, chain) {
      const body = await callVendor({
        vendor: 'vendor_c',
        dispatcher: s.dispatcher,
        method: 'POST',
        url: vendorUrl(s.url, '/v2/wallet/synchronous'),
        headers: { authorization },
        body: {
          subject: { asset: 'holistic', blockchain: chain, type: 'address', hash: address },
          type: 'wallet_exposure',
        },
        timeoutMs: s.timeoutMs,
      });
      // risk_score must be there (null is the vendor's "no score"), like each field the mapping reads.
      return riskOf('vendor_c', mapVendorC(body));
    },
  };
}
