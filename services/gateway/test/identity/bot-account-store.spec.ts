import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes, ServiceError } from '@notetaker/contracts';
import { createLogger, createMetricsRegistry } from '@notetaker/observability';
import { openStore, type Store } from '@notetaker/store';
import { BotAccountService, registerBotAccountMetrics } from '../../src/identity/bot-account-store.js';
import { SecretBox } from '../../src/identity/secrets.js';
import { parseStorageStateFile } from '../../src/identity/storage-state-file.js';
import { gatewayOnlyForSuite } from '../web/support/gateway-only.js';
import { COOKIE_SECRET, cookieArray, googleState, STORAGE_SECRET, teamsState } from './storage-states.js';

/** Every file under `dir`, as text (the embedded store's files). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));
}

function refusal(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error('not refused');
}

describe('bot account session files (storage states)', () => {
  it('accepts Playwright storageState and keeps only the platform’s cookies and https origins', () => {
    const state = parseStorageStateFile(
      JSON.stringify({
        cookies: [
          {
            name: 'SID',
            value: 'a',
            domain: '.google.com',
            path: '/',
            expires: -1,
            httpOnly: true,
            secure: true,
            sameSite: 'Lax',
          },
          {
            name: 'OSID',
            value: 'b',
            domain: 'accounts.google.com',
            path: '/',
            expires: 0,
            httpOnly: true,
            secure: true,
          },
          { name: 'other', value: 'c', domain: '.example.com', path: '/', expires: -1 },
          { name: 'lookalike', value: 'd', domain: '.notgoogle.com', path: '/', expires: -1 },
        ],
        origins: [
          { origin: 'https://meet.google.com', localStorage: [{ name: 'k', value: 'v' }] },
          { origin: 'http://meet.google.com', localStorage: [{ name: 'k', value: 'v' }] },
          { origin: 'https://example.com', localStorage: [{ name: 'k', value: 'v' }] },
        ],
      }),
      'google_meet',
    );
    expect(state.cookies.map((c) => c.name)).to.deep.equal(['SID', 'OSID']);
    expect(state.cookies[0]).to.deep.include({
      domain: '.google.com',
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    });
    expect(state.origins).to.deep.equal([
      { origin: 'https://meet.google.com', localStorage: [{ name: 'k', value: 'v' }] },
    ]);
  });

  it('accepts a bare cookie array in the DevTools shape (and browser extensions’ names)', () => {
    const state = parseStorageStateFile(cookieArray(), 'google_meet');
    expect(state.cookies).to.have.length(2);
    expect(state.cookies[0]).to.deep.include({ name: 'SID', value: COOKIE_SECRET, sameSite: 'None', expires: -1 });
    expect(state.cookies[1]).to.deep.include({ name: 'HSID', sameSite: undefined });
    expect(state.cookies[1].expires).to.be.greaterThan(Date.now() / 1000);
    expect(state.origins).to.deep.equal([]);
  });

  it('keeps Teams’ cookies of every Microsoft sign-in domain and its own origin’s localStorage', () => {
    const state = parseStorageStateFile(teamsState(), 'teams');
    expect(state.cookies.map((c) => c.domain).sort()).to.deep.equal([
      '.login.microsoftonline.com',
      '.teams.microsoft.com',
      'login.live.com',
    ]);
    expect(state.origins.map((o) => o.origin)).to.deep.equal(['https://teams.microsoft.com']);
  });

  it('refuses each bad file with a message naming what is wrong, without quoting it', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['not JSON', `{"cookies": [${COOKIE_SECRET}`, /^The session file is not JSON$/],
      ['empty', '  ', /is empty/],
      [
        'wrong shape',
        JSON.stringify({ session: COOKIE_SECRET }),
        /neither Playwright's storageState .* nor a JSON array of cookies/,
      ],
      ['origins of another shape', JSON.stringify({ cookies: [], origins: 'x' }), /neither Playwright's storageState/],
      [
        'a cookie without a domain',
        JSON.stringify([{ name: 'SID', value: COOKIE_SECRET }]),
        /cookie 1 whose "domain" is missing or invalid/,
      ],
      ['a cookie that is not an object', JSON.stringify(['SID=x']), /cookie 1 that is not an object/],
      [
        'no platform cookies',
        JSON.stringify([{ name: 'a', value: COOKIE_SECRET, domain: '.example.com' }]),
        /has no cookies for google\.com/,
      ],
      [
        'expired only',
        googleState({ expires: Math.floor(Date.now() / 1000) - 60 }),
        /holds only expired cookies for google\.com/,
      ],
      ['over 1 MB', JSON.stringify({ cookies: [], pad: 'x'.repeat(1024 * 1024) }), /^The session file is over 1 MB$/],
    ];
    for (const [what, text, message] of cases) {
      const err = refusal(() => parseStorageStateFile(text, 'google_meet'));
      expect(err.status, what).to.equal(400);
      expect(err.field, what).to.equal('session');
      expect(err.message, what).to.match(message);
      expect(err.message, what).not.to.contain(COOKIE_SECRET);
    }
    // A Google session is no Teams session.
    expect(refusal(() => parseStorageStateFile(googleState(), 'teams')).message).to.match(
      /no cookies for microsoft\.com/,
    );
  });
});

describe('BotAccountService', () => {
  let dataDir: string;
  let store: Store;
  let box: SecretBox;
  let lines: string[];
  let service: BotAccountService;

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-accounts-'));
    store = await openStore({ service: 'gateway', dataDir });
    box = SecretBox.load({ dataDir });
    lines = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    service = new BotAccountService(store, box, createLogger({ service: 'gateway', level: 'info', destination: sink }));
    await service.init();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores the session sealed: no cookie or localStorage value in the store’s files', async () => {
    const added = await service.add({
      platform: 'google_meet',
      name: ' Bot 1 ',
      storageStateText: googleState(),
      maxMeetings: 3,
    });
    expect(added).to.deep.include({
      platform: 'google_meet',
      name: 'Bot 1',
      status: 'active',
      maxMeetings: 3,
      lastUsedAt: null,
      identity: null,
    });
    expect(added.id).to.match(/^bot_/);
    expect(JSON.stringify(added)).not.to.contain(COOKIE_SECRET);
    const files = filesUnder(path.join(dataDir, 'gateway'));
    expect(files.join('\n')).to.contain(added.id);
    for (const text of files) {
      expect(text).not.to.contain(COOKIE_SECRET);
      expect(text).not.to.contain(STORAGE_SECRET);
    }
    const state = await service.storageState(added.id);
    expect(state.cookies[0].value).to.equal(COOKIE_SECRET);
    expect(state.origins[0].localStorage[0].value).to.equal(STORAGE_SECRET);
    expect(lines.join('')).to.contain('bot account added').and.not.to.contain(COOKIE_SECRET);
  });

  it('stores nothing when the file or a field is refused', async () => {
    const attempts: Array<[Parameters<BotAccountService['add']>[0], RegExp]> = [
      [{ platform: 'google_meet', name: 'a', storageStateText: 'nope' }, /not JSON/],
      [{ platform: 'google_meet', name: 'a', storageStateText: googleState({ expires: 1 }) }, /only expired cookies/],
      [
        { platform: 'webex', name: 'a', storageStateText: googleState() },
        /platform must be google_meet, teams or zoom/,
      ],
      [{ platform: 'google_meet', name: ' ', storageStateText: googleState() }, /name must be 1-100 characters/],
      [{ platform: 'google_meet', name: 'x'.repeat(101), storageStateText: googleState() }, /name must be 1-100/],
      [
        { platform: 'google_meet', name: 'a', storageStateText: googleState(), maxMeetings: 0 },
        /maxMeetings must be a whole number from 1 to 50/,
      ],
      [{ platform: 'google_meet', name: 'a', storageStateText: googleState(), maxMeetings: 51 }, /maxMeetings/],
      [{ platform: 'google_meet', name: 'a', storageStateText: googleState(), maxMeetings: 1.5 }, /maxMeetings/],
    ];
    for (const [input, message] of attempts) {
      const err = await service.add(input).catch((e: unknown) => e as ServiceError);
      expect(err, String(message)).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).status).to.equal(400);
      expect((err as ServiceError).message).to.match(message);
    }
    expect(await service.list()).to.deep.equal([]);
  });

  it('keeps names unique per platform, lists, filters by platform and removes', async () => {
    const meet = await service.add({ platform: 'google_meet', name: 'Bot', storageStateText: googleState() });
    expect(meet.maxMeetings).to.equal(1);
    const teams = await service.add({ platform: 'teams', name: 'Bot', storageStateText: teamsState() });
    const dup = await service
      .add({ platform: 'google_meet', name: 'Bot', storageStateText: cookieArray() })
      .catch((e) => e);
    expect(dup).to.be.instanceOf(ServiceError).with.property('status', 409);
    expect(dup.message).to.equal('A Google Meet bot account named "Bot" already exists');

    expect((await service.list()).map((a) => a.id)).to.deep.equal([meet.id, teams.id]);
    expect((await service.forPlatform('teams')).map((a) => a.id)).to.deep.equal([teams.id]);

    expect((await service.remove(meet.id)).id).to.equal(meet.id);
    expect((await service.list()).map((a) => a.id)).to.deep.equal([teams.id]);
    for (const gone of [
      () => service.remove(meet.id),
      () => service.storageState(meet.id),
      () => service.report(meet.id, { signedOut: true }),
    ]) {
      const err = await gone().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(ServiceError).with.property('status', 404);
    }
  });

  it('turns signed_out with one warning line naming the account, never its session; identity and last use recorded', async () => {
    const added = await service.add({ platform: 'teams', name: 'Teams bot', storageStateText: teamsState() });
    await service.report(added.id, { identity: ' bot@contoso.example ', usedAt: '2026-01-02T03:04:05.000Z' });
    expect((await service.list())[0]).to.deep.include({
      identity: 'bot@contoso.example',
      lastUsedAt: '2026-01-02T03:04:05.000Z',
      status: 'active',
    });

    // Two bots find the session refused at once: one warning.
    await Promise.all([service.report(added.id, { signedOut: true }), service.report(added.id, { signedOut: true })]);
    expect((await service.list())[0].status).to.equal('signed_out');
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.deep.include({ botAccountId: added.id, botAccountName: 'Teams bot', platform: 'teams' });
    expect(lines.join('')).not.to.contain(COOKIE_SECRET);

    await service.report(added.id, { signedOut: false });
    expect((await service.list())[0].status).to.equal('active');
  });

  it('counts accounts by platform and status in bot_accounts', async () => {
    const registry = createMetricsRegistry('gateway');
    registerBotAccountMetrics(registry, service);
    const a = await service.add({ platform: 'google_meet', name: 'a', storageStateText: googleState() });
    await service.add({ platform: 'google_meet', name: 'b', storageStateText: googleState() });
    await service.report(a.id, { signedOut: true });
    const text = await registry.metrics();
    const value = (platform: string, status: string) =>
      Number(
        new RegExp(`^bot_accounts\\{platform="${platform}",status="${status}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1],
      );
    expect(value('google_meet', 'active')).to.equal(1);
    expect(value('google_meet', 'signed_out')).to.equal(1);
    expect(value('teams', 'active')).to.equal(0);
  });
});

describe('bot accounts over the bus', () => {
  const gateway = gatewayOnlyForSuite();

  /** Adds an account with the operator's admin command (as the CLI does); its id. */
  const addAccount = async (fields: { platform: string; name: string; session: string; maxMeetings?: number }) =>
    (await gateway.admin({ command: 'bot-account.add', ...fields })) as { id: string };

  it('answers a platform’s accounts, an account’s storage state and reports; 404 once removed', async () => {
    const added = await addAccount({
      platform: 'google_meet',
      name: 'Bus bot',
      session: googleState(),
      maxMeetings: 2,
    });
    const { accounts } = await call(gateway.bus, routes.identity.botAccounts, { platform: 'google_meet' });
    expect(accounts.map((a) => a.id)).to.deep.equal([added.id]);
    expect(JSON.stringify(accounts)).not.to.contain(COOKIE_SECRET);
    expect((await call(gateway.bus, routes.identity.botAccounts, { platform: 'teams' })).accounts).to.deep.equal([]);

    const { session: state } = await call(gateway.bus, routes.identity.botAccountStorageState, { accountId: added.id });
    expect(state.cookies[0].value).to.equal(COOKIE_SECRET);

    expect(
      await call(gateway.bus, routes.identity.botAccountReport, {
        accountId: added.id,
        signedOut: true,
        identity: 'Notetaker Bot',
      }),
    ).to.deep.equal({});
    const [after] = (await call(gateway.bus, routes.identity.botAccounts, { platform: 'google_meet' })).accounts;
    expect(after).to.deep.include({ status: 'signed_out', identity: 'Notetaker Bot' });

    await gateway.admin({ command: 'bot-account.remove', id: added.id });
    const gone = await call(gateway.bus, routes.identity.botAccountStorageState, { accountId: added.id }).catch(
      (e: unknown) => e,
    );
    expect(gone).to.be.instanceOf(ServiceError).with.property('status', 404);
  });

  it('lists meetings in use from meeting-session’s registry, 0 when it does not answer', async () => {
    const added = await addAccount({ platform: 'teams', name: 'Busy', session: teamsState() });
    const listed = () =>
      gateway.admin({ command: 'bot-account.list' }) as Promise<Array<{ id: string; meetingsInUse: number }>>;
    expect((await listed()).find((a) => a.id === added.id)?.meetingsInUse).to.equal(0);
    const registry = gateway.bus.serve(routes.meetings.accountUsage.subject, () => ({ inUse: { [added.id]: 2 } }));
    try {
      expect((await listed()).find((a) => a.id === added.id)?.meetingsInUse).to.equal(2);
    } finally {
      await registry.unsubscribe();
    }
  });
});
