/**
 * What an S3 error means for the adapter, read from its name and HTTP status only: the SDK's
 * error may carry request details, and none of it goes into a message.
 */

const REFUSED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
]);
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

export interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Why a call failed, in a few words from the error's name and status only: the store cannot be
 * reached or did not answer, it refuses us, the bucket is missing, or something else it said.
 */
export function causeOf(err: unknown): { kind: 'store' | 'other'; text: string } {
  const { name = 'Error', code, $metadata } = (err ?? {}) as SdkError;
  const status = $metadata?.httpStatusCode;
  if (name === 'NoSuchBucket') return { kind: 'store', text: 'the bucket does not exist' };
  if (REFUSED.has(name) || status === 403) return { kind: 'store', text: `the credentials were refused (${name})` };
  if (UNREACHABLE.has(code ?? '') || UNREACHABLE.has(name)) {
    return { kind: 'store', text: `the endpoint cannot be reached (${code ?? name})` };
  }
  if (name === 'TimeoutError' || name === 'RequestTimeout') {
    return { kind: 'store', text: 'the endpoint did not answer in time' };
  }
  return { kind: 'other', text: status ? `${name} (HTTP ${status})` : name };
}

export function isMissing(err: unknown): boolean {
  const { name, $metadata } = err as SdkError;
  // A HEAD has no body to name the error: a 404 is all it says.
  return name === 'NoSuchKey' || name === 'NotFound' || (name !== 'NoSuchBucket' && $metadata?.httpStatusCode === 404);
}

export function isNoSuchUpload(err: unknown): boolean {
  return (err as SdkError).name === 'NoSuchUpload';
}

export function isUnsupported(err: unknown): boolean {
  const { name, $metadata } = err as SdkError;
  const status = $metadata?.httpStatusCode;
  return name === 'NotImplemented' || name === 'MethodNotAllowed' || status === 501 || status === 405;
}

/** scheme://host:port alone: a user and password written into the URL stay out of messages. */
export function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return '(an endpoint that is not a URL)';
  }
}
