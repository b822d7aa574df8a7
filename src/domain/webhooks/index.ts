// Webhook domain: vendor kinds, signature verification, payload normalisation.
export * from './kinds.ts';
export * from './payload.ts';
export {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  hmacMatches,
  hmacSha256,
  parseSignatureHeader,
  type VerifyFailure,
  type VerifyInput,
  type VerifyResult,
  verifySignature,
} from './signature.ts';
