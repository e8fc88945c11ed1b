/**
 * A browser-like HTTP client for the web application's server-side tests: keeps cookies, follows
 * nothing by itself (tests look at each redirect), and reads the CSRF token out of a page.
 */
export interface WebResponse {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

/** The owner account the suites set up. */
export const OWNER = { email: 'owner@example.com', password: 'a long enough password' };

export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(path: string, init: RequestInit = {}): Promise<WebResponse> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('Cookie', this.cookieHeader());
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: 'manual' });
    this.remember(res.headers);
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text: await res.text() };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<WebResponse> {
    return this.request(path, { headers });
  }

  /** A form POST; `_csrf` is whatever the test passes (or leaves out). */
  post(
    path: string,
    fields: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<WebResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    return this.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: body.toString(),
    });
  }

  /** The CSRF token of the page at `path`. */
  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no CSRF token on ${path} (status ${page.status})`);
    return match[1];
  }

  /** Sends the form of the page at `from` (by default `path` itself) to `path`, with that page's CSRF token. */
  async submit(path: string, fields: Record<string, string | string[]>, from = path): Promise<WebResponse> {
    return this.post(path, { _csrf: await this.csrf(from), ...fields });
  }

  /** First-run setup of the owner account; leaves this client signed in. */
  async setup(email: string, password: string): Promise<void> {
    const res = await this.submit('/setup', { email, password, confirm: password });
    if (res.status !== 303 || res.location !== '/meetings')
      throw new Error(`setup failed: ${res.status} ${res.text.slice(0, 300)}`);
  }

  async signIn(email: string, password: string): Promise<WebResponse> {
    return this.submit('/signin', { email, password });
  }
}
