/**
 * Payloads travel as JSON text on both adapters, so a value observed by a handler never shares
 * references with the sender and Dates arrive as strings, whichever adapter is running.
 * `undefined` travels as "no payload" rather than failing, mirroring an empty NATS message.
 */
export function toJson(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return value instanceof JsonText ? value.text : JSON.stringify(value);
}

/**
 * A payload its sender already holds as JSON text (it serialized the value once, e.g. to store
 * it): sent as that text instead of being serialized again. Receivers see the parsed value.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

export function fromJson(json: string | undefined): unknown {
  return json === undefined || json.length === 0 ? undefined : JSON.parse(json);
}
