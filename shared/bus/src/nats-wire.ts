import { errors, ServiceError, toWireError, type WireError } from '@notetaker/contracts';
import { fromJson, JsonText, toJson } from './json-payload.js';

/**
 * Byte encoding for the NATS adapter. A reply carries an envelope, serialized in the same single
 * JSON pass as its data (no nested encoding), so the requester can tell answers from errors.
 */
export type ReplyEnvelope = { ok: true; data?: unknown } | { ok: false; error: WireError };

const EMPTY = new Uint8Array(0);
// Buffer.from beats TextEncoder.encode by ~2x on 1 KB strings in Node 20.
const decoder = new TextDecoder();

export function encodePayload(value: unknown): Uint8Array {
  const json = toJson(value);
  return json === undefined ? EMPTY : Buffer.from(json);
}

export function decodePayload(bytes: Uint8Array): unknown {
  return bytes.length === 0 ? undefined : fromJson(decoder.decode(bytes));
}

export function encodeSuccess(value: unknown): Uint8Array {
  try {
    if (value instanceof JsonText) return Buffer.from(`{"ok":true,"data":${value.text}}`);
    return Buffer.from(JSON.stringify({ ok: true, data: value }));
  } catch {
    return encodeFailure(errors.internal());
  }
}

export function encodeFailure(err: unknown): Uint8Array {
  return Buffer.from(JSON.stringify({ ok: false, error: toWireError(err) }));
}

/** Returns the data of a success envelope, throws the rebuilt ServiceError of a failure one. */
export function openReply(bytes: Uint8Array): unknown {
  let envelope: ReplyEnvelope | undefined;
  try {
    envelope = decodePayload(bytes) as ReplyEnvelope | undefined;
  } catch {
    envelope = undefined;
  }
  if (envelope?.ok === true) return envelope.data;
  if (envelope?.ok === false && envelope.error) throw ServiceError.fromWire(envelope.error);
  // Something other than a bus server answered; its bytes are not ours to interpret.
  throw errors.internal();
}
