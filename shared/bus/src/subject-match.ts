/**
 * NATS subject matching for the in-process bus: `*` matches exactly one token, `>` (last token only)
 * matches one or more remaining tokens. Literal patterns never reach here (they are looked up in a map).
 */
export function isWildcardPattern(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('>');
}

export function subjectMatches(patternTokens: readonly string[], subject: string): boolean {
  const tokens = subject.split('.');
  const last = patternTokens.length - 1;
  for (let i = 0; i <= last; i++) {
    const p = patternTokens[i];
    if (p === '>' && i === last) return tokens.length > i;
    if (i >= tokens.length) return false;
    if (p !== '*' && p !== tokens[i]) return false;
  }
  return tokens.length === patternTokens.length;
}

/** Dot-separated non-empty tokens without whitespace or wildcard characters: every published subject. */
const LITERAL_SUBJECT = /^[^\s.*>]+(?:\.[^\s.*>]+)*$/;

/** Rejects subjects NATS would reject, so the memory bus cannot accept what production refuses. */
export function assertValidSubject(subject: string, allowWildcards: boolean): void {
  // One regex test on the hot path (every publish); patterns with wildcards get the token walk.
  if (typeof subject === 'string' && LITERAL_SUBJECT.test(subject)) return;
  if (typeof subject !== 'string' || subject.length === 0 || /\s/.test(subject)) {
    throw new TypeError(`Invalid bus subject: ${JSON.stringify(subject)}`);
  }
  const tokens = subject.split('.');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const wildcard = t === '*' || (t === '>' && i === tokens.length - 1);
    if (t === '' || (!wildcard && (t.includes('*') || t.includes('>'))) || (wildcard && !allowWildcards)) {
      throw new TypeError(`Invalid bus subject: ${JSON.stringify(subject)}`);
    }
  }
}
