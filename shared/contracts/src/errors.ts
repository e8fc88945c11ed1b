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
  /** Seconds after which a retry may succeed; a 503 that carries it is load, not a fault, and
   * the gateway shows its message with a `Retry-After` header. */
  retryAfterS?: number;
  /** The input field a 400 is about (a form shows the message next to it). */
  field?: string;
}

/** What an error may say beyond its code, message and status. */
export type ErrorDetails = Pick<WireError, 'retryAfterS' | 'field'>;

export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;
  declare readonly retryAfterS?: number;
  declare readonly field?: string;

  constructor(code: string, message: string, status = 500, retryable = false, details: ErrorDetails = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.status = status;
    this.retryable = retryable;
    if (details.retryAfterS !== undefined) this.retryAfterS = details.retryAfterS;
    if (details.field !== undefined) this.field = details.field;
  }

  toWire(): WireError {
    const { code, message, status, retryable, retryAfterS, field } = this;
    return {
      code,
      message,
      status,
      retryable,
      ...(retryAfterS !== undefined && { retryAfterS }),
      ...(field !== undefined && { field }),
    };
  }

  static fromWire(wire: WireError): ServiceError {
    return new ServiceError(wire.code, wire.message, wire.status, wire.retryable, wire);
  }
}

/** Anything thrown becomes a WireError; unexpected errors keep no message, so no internals leak. */
export function toWireError(err: unknown): WireError {
  if (err instanceof ServiceError) return err.toWire();
  return { code: 'internal', message: 'Internal error', status: 500, retryable: false };
}

export const errors = {
  /** `field`: the input the message is about, when there is one. */
  badRequest: (message: string, field?: string) => new ServiceError('bad_request', message, 400, false, { field }),
  invalidApiKey: () => new ServiceError('invalid_api_key', 'Invalid API key', 401),
  forbidden: (message: string) => new ServiceError('forbidden', message, 403),
  notFound: (message = 'Not found') => new ServiceError('not_found', message, 404),
  conflict: (message: string) => new ServiceError('conflict', message, 409),
  /** A start of a meeting that a live bot transcribes already (whoever started it). */
  alreadyTranscribed: () => new ServiceError('already_transcribed', 'Meeting URL is already being transcribed', 409),
  payloadTooLarge: (message = 'Request body too large') => new ServiceError('payload_too_large', message, 413),
  duplicateKey: (message = 'Duplicate key') => new ServiceError('duplicate_key', message, 409),
  busTimeout: (subject: string) => new ServiceError('bus_timeout', `No reply on ${subject} in time`, 504, true),
  noResponders: (subject: string) => new ServiceError('no_responders', `No service answers ${subject}`, 503, true),
  unavailable: (message: string) => new ServiceError('unavailable', message, 503, true),
  /** Every bot seat of the instance is taken: load, not a fault; the client retries later. */
  atCapacity: (totalSeats: number, retryAfterS = 5) =>
    new ServiceError('at_capacity', `All ${totalSeats} bot seats are busy; retry in ${retryAfterS} s`, 503, true, {
      retryAfterS,
    }),
  /** No live worker can launch a browser for its bots: fixed on the workers' machines (an install,
   * CHROME_PATH), which they notice by themselves; the message says what to do. */
  noBrowser: (retryAfterS = 30) =>
    new ServiceError('no_browser', 'No browser for the bots: install chromium or set CHROME_PATH', 503, true, {
      retryAfterS,
    }),
  internal: () => new ServiceError('internal', 'Internal error', 500),
};
