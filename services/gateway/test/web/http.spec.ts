/**
 * The web application's accounts, sessions and CSRF over plain HTTP, against the real gateway
 * (alone on its bus: every other service is absent, which is also how the pages' "service
 * unavailable" states are shown). The browser suite covers the same flows through Chromium.
 */
import { expect } from 'chai';
import { afterClockMoves } from '../../../../test/support/wait.js';
import { gatewayOnlyForSuite } from './support/gateway-only.js';
import { OWNER, WebClient } from './support/web-client.js';

describe('web application over HTTP', () => {
  const g = gatewayOnlyForSuite({ WEB_SIGNIN_MAX_FAILURES: '3' });
  let owner: WebClient;

  before(() => {
    owner = new WebClient(g.baseUrl);
  });

  it('sends every page with the security headers and no caching', async () => {
    const res = await new WebClient(g.baseUrl).get('/setup');
    expect(res.status).to.equal(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("script-src 'self'").and.to.contain("frame-ancestors 'none'");
    expect(csp).not.to.contain('unsafe-inline');
    expect(csp).not.to.contain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('referrer-policy')).to.equal('same-origin');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.text).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.text).not.to.match(/\sstyle=|\son[a-z]+=/i);
  });

  it('serves its scripts and styles from this process, under a fixed list of names', async () => {
    const client = new WebClient(g.baseUrl);
    const htmx = await client.get('/static/htmx.min.js');
    expect(htmx.status).to.equal(200);
    expect(htmx.headers.get('content-type')).to.contain('javascript');
    expect((await client.get('/static/pico.min.css')).headers.get('content-type')).to.contain('text/css');
    expect((await client.get('/static/app.js')).status).to.equal(200);
    expect((await client.get('/static/..%2Fsign-ins.ts')).status).to.equal(404);
    expect((await client.get('/static/package.json')).status).to.equal(404);
  });

  it('refuses the setup form without its CSRF token', async () => {
    const client = new WebClient(g.baseUrl);
    await client.get('/setup');
    const res = await client.post('/setup', { email: OWNER.email, password: OWNER.password, confirm: OWNER.password });
    expect(res.status).to.equal(403);
    expect(res.text).to.contain('This form has expired or was not sent from this site');
    expect((await client.get('/')).location).to.equal('/setup');
  });

  it('shows setup errors next to their fields', async () => {
    const client = new WebClient(g.baseUrl);
    const res = await client.submit('/setup', { email: 'not-an-email', password: 'short', confirm: 'short' });
    expect(res.status).to.equal(400);
    expect(res.text).to.match(/id="f-email"[^>]*aria-invalid="true"[^>]*>\s*<small id="f-email-error"/);
    expect(res.text).to.match(
      /id="f-password"[^>]*aria-invalid="true"[^>]*>\s*<small id="f-password-error"[^>]*>The password needs at least 10/,
    );
  });

  it('creates the owner account once, signs it in with an HttpOnly SameSite=Lax cookie, and closes setup', async () => {
    expect((await owner.get('/')).location).to.equal('/setup');
    const res = await owner.submit('/setup', { email: OWNER.email, password: OWNER.password, confirm: OWNER.password });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/meetings');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('nt_session='));
    expect(cookie)
      .to.match(/; HttpOnly/)
      .and.match(/; SameSite=Lax/)
      .and.match(/; Path=\//);
    expect(cookie).not.to.match(/Secure/);
    expect((await owner.get('/meetings')).status).to.equal(200);

    const late = new WebClient(g.baseUrl);
    expect((await late.get('/setup')).location).to.equal('/signin');
    const again = await late.submit(
      '/setup',
      { email: 'intruder@example.com', password: 'another long password', confirm: 'another long password' },
      '/signin',
    );
    expect(again.location).to.equal('/signin');
    expect((await late.signIn('intruder@example.com', 'another long password')).status).to.equal(401);
  });

  it('marks the session cookie Secure when the browser came over https', async () => {
    const client = new WebClient(g.baseUrl);
    const csrf = await client.csrf('/signin');
    const res = await client.post(
      '/signin',
      { _csrf: csrf, email: OWNER.email, password: OWNER.password },
      { 'X-Forwarded-Proto': 'https' },
    );
    expect(res.status).to.equal(303);
    expect(res.headers.getSetCookie().find((c) => c.startsWith('nt_session='))).to.match(/; Secure/);
  });

  it('answers a wrong password with an error next to the password field and no session', async () => {
    const client = new WebClient(g.baseUrl);
    const res = await client.signIn(OWNER.email, 'not the password');
    expect(res.status).to.equal(401);
    expect(res.text).to.match(
      /id="f-password"[^>]*aria-invalid="true"[^>]*>\s*<small id="f-password-error" class="field-error">The email or the password is not right\./,
    );
    expect(res.text).to.contain(`value="${OWNER.email}"`);
    expect(client.cookies.has('nt_session')).to.equal(false);
    expect((await client.get('/meetings')).location).to.match(/^\/signin/);
  });

  it('locks an email out after repeated failures from one address, even with the right password', async () => {
    await g.admin({ command: 'account.create', email: 'locked@example.com', password: 'the right password' });
    const client = new WebClient(g.baseUrl);
    for (let i = 0; i < 3; i++)
      expect((await client.signIn('locked@example.com', 'wrong password')).status).to.equal(401);
    const locked = await client.signIn('locked@example.com', 'the right password');
    expect(locked.status).to.equal(429);
    expect(locked.text).to.contain('Too many failed sign-in attempts. Try again in 15 minutes.');
    expect(Number(locked.headers.get('retry-after'))).to.be.greaterThan(800);
    expect(client.cookies.has('nt_session')).to.equal(false);
    // Another email from the same address is not locked.
    expect((await new WebClient(g.baseUrl).signIn(OWNER.email, OWNER.password)).status).to.equal(303);
  });

  it('refuses a signed-in form without the CSRF token, or with another session’s, and changes nothing', async () => {
    const before = (await g.admin({ command: 'token.list' })) as unknown[];
    const missing = await owner.post('/settings/tokens', { name: 'sneaky', capabilities: 'knowledge:write' });
    expect(missing.status).to.equal(403);
    expect(missing.text).to.contain('Reload the page and try again');

    const other = new WebClient(g.baseUrl);
    await other.signIn(OWNER.email, OWNER.password);
    const foreign = await owner.post('/settings/tokens', {
      _csrf: await other.csrf('/settings/tokens'),
      name: 'sneaky',
    });
    expect(foreign.status).to.equal(403);
    expect((await g.admin({ command: 'token.list' })) as unknown[]).to.have.length(before.length);
  });

  it('never lets a session cookie stand in for an API key', async () => {
    const res = await owner.get('/api/v1/projects');
    expect(res.status).to.equal(401);
    expect(JSON.parse(res.text)).to.deep.equal({ error: 'Invalid API key' });
  });

  it('shows each account only its own tokens, and lets only the owner revoke one', async () => {
    const created = await owner.submit('/settings/tokens', { name: 'Owner token', capabilities: 'knowledge:write' });
    expect(created.location).to.equal('/settings/tokens/new');
    const shown = await owner.get('/settings/tokens/new');
    const apiKey = /id="api-key"[^>]*value="(sk_[A-Za-z0-9_-]+)"/.exec(shown.text)?.[1];
    expect(apiKey).to.be.a('string');
    expect((await owner.get('/settings/tokens/new')).location).to.equal('/settings/tokens?notice=token-gone');
    const tokenId = /data-token-id="(tok_[^"]+)"/.exec((await owner.get('/settings/tokens')).text)?.[1];

    await g.admin({ command: 'account.create', email: 'second@example.com', password: 'second long password' });
    const second = new WebClient(g.baseUrl);
    expect((await second.signIn('second@example.com', 'second long password')).status).to.equal(303);
    const list = await second.get('/settings/tokens');
    expect(list.text).not.to.contain('Owner token');
    await second.submit(`/settings/tokens/${tokenId}/revoke`, {}, '/settings/tokens');
    const stillActive = (await owner.get('/settings/tokens')).text;
    expect(stillActive).to.match(new RegExp(`data-token-id="${tokenId}"[\\s\\S]*?Active`));
  });

  it('lets a signed-in account add another, who can then sign in', async () => {
    const bad = await owner.submit('/settings/accounts', { email: 'third@example.com', password: 'short' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('The password needs at least 10 characters.');
    const added = await owner.submit('/settings/accounts', {
      email: 'third@example.com',
      password: 'third long password',
    });
    expect(added.location).to.equal('/settings/accounts?notice=account-created');
    expect((await owner.get('/settings/accounts')).text).to.contain('third@example.com');
    const duplicate = await owner.submit('/settings/accounts', {
      email: 'Third@Example.com',
      password: 'another long password',
    });
    expect(duplicate.status).to.equal(409);
    expect(duplicate.text).to.contain('An account for third@example.com already exists');
    expect((await new WebClient(g.baseUrl).signIn('third@example.com', 'third long password')).status).to.equal(303);
  });

  it('signs out: the old cookie is worthless from then on', async () => {
    const client = new WebClient(g.baseUrl);
    await client.signIn(OWNER.email, OWNER.password);
    const cookie = client.cookies.get('nt_session')!;
    const out = await client.submit('/signout', {}, '/meetings');
    expect(out.location).to.equal('/signin?notice=signed-out');
    const replay = await fetch(`${g.baseUrl}/meetings`, {
      headers: { Cookie: `nt_session=${cookie}` },
      redirect: 'manual',
    });
    expect(replay.status).to.equal(303);
    expect(replay.headers.get('location')).to.equal('/signin?next=%2Fmeetings&notice=expired');
  });

  it('returns to a local page after sign-in, never to another site', async () => {
    const client = new WebClient(g.baseUrl);
    const bounced = await client.get('/tasks?x=1');
    expect(bounced.location).to.equal('/signin?next=%2Ftasks%3Fx%3D1');
    const back = await client.submit(
      '/signin',
      { email: OWNER.email, password: OWNER.password, next: '/tasks?x=1' },
      bounced.location!,
    );
    expect(back.location).to.equal('/tasks?x=1');
    const evil = new WebClient(g.baseUrl);
    const res = await evil.submit('/signin', { email: OWNER.email, password: OWNER.password, next: '//evil.example/' });
    expect(res.location).to.equal('/meetings');
  });

  it('shows "service unavailable" where the service behind a page is not running', async () => {
    for (const path of ['/meetings', '/projects', '/tasks', '/search?q=budget']) {
      const res = await owner.get(path);
      expect(res.status, path).to.equal(200);
      expect(res.text, path).to.contain('Service unavailable');
    }
    const meeting = await owner.get('/meetings/meeting_1700000000000_abcdefghij');
    expect(meeting.status).to.equal(503);
    expect(meeting.text).to.contain('Service unavailable');
    const start = await owner.submit('/meetings', {
      url: 'https://meet.google.com/abc-defg-hij',
      project: 'general',
      saveTranscript: 'true',
    });
    expect(start.status).to.equal(503);
    expect(start.text).to.contain('The meeting service is unavailable right now');
    expect((await owner.get('/projects/general')).text).to.contain('Service unavailable');
    expect((await owner.get('/tasks/new')).status).to.equal(200);
  });

  it('answers unknown meetings, documents and tasks with a 404 page', async () => {
    for (const path of ['/meetings/not-a-meeting', '/documents/..%2F..%2Fetc', '/tasks/..%2F..']) {
      const res = await owner.get(path);
      expect(res.status, path).to.equal(404);
      expect(res.text, path).to.contain('<h1>Not found</h1>');
    }
  });
});

describe('web application sessions', () => {
  const g = gatewayOnlyForSuite({ WEB_SESSION_IDLE_MS: '800' });

  it('ends an idle session and sends the browser back to sign-in, then to where it was', async () => {
    const client = new WebClient(g.baseUrl);
    await client.setup(OWNER.email, OWNER.password);
    expect((await client.get('/settings/tokens')).status).to.equal(200);
    // The clock moves past the idle time; nothing waits for it (the gateway runs in this process).
    const expired = await afterClockMoves(1000, () => client.get('/settings/tokens'));
    expect(expired.status).to.equal(303);
    expect(expired.location).to.equal('/signin?next=%2Fsettings%2Ftokens&notice=expired');
    expect(client.cookies.has('nt_session')).to.equal(false);
    const page = await client.get(expired.location!);
    expect(page.text).to.contain('Your session has expired. Sign in again to continue.');
  });
});
