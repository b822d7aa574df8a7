import { mapVendorC } from '../../domain/screening/index.ts';
import { callVendor, VendorCallError, vendorUrl } from '../http.ts';
import { asObject, type VendorClient, type VendorSettings } from '../vendor.ts';

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
      const score = asObject(body)?.risk_score;
      // risk_score must be there (null is the vendor's "no score"); without it the answer is not one.
      if (score !== null && typeof score !== 'number')
        throw new VendorCallError('vendor_c', 'answer has no risk_score', 'failure');
      return mapVendorC(body);
    },
  };
}
