/**
 * What the identity services show of a stored record: its `_id` as `id`, then exactly the fields
 * named, in that order. A field not named (a key digest, a sealed secret or storage state) is never
 * shown, so a new secret field stays hidden without anyone remembering to leave it out.
 */
export function shownFields<R extends { _id: string }, K extends keyof R & string>(
  record: R,
  fields: readonly K[],
): { id: string } & Pick<R, K> {
  const shown: Record<string, unknown> = { id: record._id };
  for (const field of fields) shown[field] = record[field];
  return shown as { id: string } & Pick<R, K>;
}
