/**
 * URLs without their secrets, for any text that may carry one: an error's message (fetch names
 * the URL it could not use, credentials included), a log line, a warning shown on a meeting.
 * Credentials (`user:password@`) and the values of query or fragment parameters that look like
 * secrets (`?key=`, `&access_token=`, S3's `X-Amz-Signature`) become `[redacted]`; the rest of the
 * URL stays, since where a request went is what the operator needs to read.
 */

export const REDACTED = '[redacted]';

/** A URL in running text: a scheme, `://`, then anything up to a space, a quote or a backslash (a JSON escape). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\]+/gi;
/** The userinfo: everything before the authority's last `@` (a password may hold an `@` of its own). */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;
/** A parameter after `?`, `&`, `;` or `#`: its name, then its value. */
const PARAMETER = /([?&;#])([^=&;#]*)=([^&;#]*)/g;
const SECRET_PARAMETER =
  /key|token|secret|passw|pwd|auth|signature|^sig$|credential|session|^code$|^x-amz-security-token$/i;

/** `url` without credentials and secret parameter values. */
export function redactUrl(url: string): string {
  return url
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(PARAMETER, (whole, sep: string, name: string) =>
      SECRET_PARAMETER.test(safeDecode(name)) ? `${sep}${name}=${REDACTED}` : whole,
    );
}

/** `text` with every URL in it redacted (redactUrl); text without `://` is returned as it is. */
export function redactUrls(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, redactUrl) : text;
}

function safeDecode(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
