/**
 * Payloads travel as JSON text on both adapters, so a value observed by a handler never shares
 * references with the sender and Dates arrive as strings, whichever adapter is running.
 * `undefined` travels as "no payload" rather than failing, mirroring an empty NATS message.
 */
export function toJson(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

export function fromJson(json: string | undefined): unknown {
  return json === undefined || json.length === 0 ? undefined : JSON.parse(json);
}
