/**
 * Errors that cross process boundaries. A handler on one side of the bus throws a ServiceError;
 * the bus carries it as a plain WireError and the caller's side rebuilds the same class, so the
 * gateway can map it to an HTTP status without knowing which service raised it.
 */
export interface WireError {
  code: string;
  message: string;
  status: number;
  retryable: boolean;
}

export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;

  constructor(code: string, message: string, status = 500, retryable = false) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.status = status;
    this.retryable = retryable;
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, status: this.status, retryable: this.retryable };
  }

  static fromWire(wire: WireError): ServiceError {
    return new ServiceError(wire.code, wire.message, wire.status, wire.retryable);
  }
}

/** Anything thrown becomes a WireError; unexpected errors keep no message, so no internals leak. */
export function toWireError(err: unknown): WireError {
  if (err instanceof ServiceError) return err.toWire();
  return { code: 'internal', message: 'Internal error', status: 500, retryable: false };
}

export const errors = {
  badRequest: (message: string) => new ServiceError('bad_request', message, 400),
  invalidApiKey: () => new ServiceError('invalid_api_key', 'Invalid API key', 401),
  forbidden: (message: string) => new ServiceError('forbidden', message, 403),
  notFound: (message = 'Not found') => new ServiceError('not_found', message, 404),
  conflict: (message: string) => new ServiceError('conflict', message, 409),
  payloadTooLarge: (message = 'Request body too large') => new ServiceError('payload_too_large', message, 413),
  duplicateKey: (message = 'Duplicate key') => new ServiceError('duplicate_key', message, 409),
  busTimeout: (subject: string) => new ServiceError('bus_timeout', `No reply on ${subject} in time`, 504, true),
  noResponders: (subject: string) => new ServiceError('no_responders', `No service answers ${subject}`, 503, true),
  unavailable: (message: string) => new ServiceError('unavailable', message, 503, true),
  internal: () => new ServiceError('internal', 'Internal error', 500),
};
