import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { growWords, type SimAccount, type SimPlatform } from '../simulators/index.js';
import { listBotAccounts, removeBotAccount, useBotAccounts } from './support/bot-accounts.js';
import { payloadOf, PLATFORMS, statusOf, useWorld } from './support/world.js';

/**
 * Bots that get into meetings which refuse guests, as an operator sets them up: bot accounts
 * imported through the gateway's identity commands (what `npm run cli -- bot-account add` runs),
 * starts over REST, the real drivers in real Chromium against the simulators.
 */
describe('Signed-in bots (whole stack)', function () {
  this.timeout(120_000);
  const world = useWorld({}, { chromiumRequired: true });
  const accounts = useBotAccounts(world, 'Minutes Bot', 'minutes');

  /** A meeting that refuses guests on the platform's screen (only a signed-in bot gets in), no lobby. */
  const startRefusingGuests = (platform: SimPlatform) =>
    world().start(platform, { meeting: { guests: 'refused_screen', lobby: false } });

  /** Stops the meeting and waits for its `ended` status callback, which it returns. */
  const stopUntilEnded = async (meetingId: string) => {
    await world().stop(meetingId);
    return world().waitForStatus(meetingId, 'ended');
  };

  const live = async (meetingId: string) => {
    const res = await world().get('/meetings/status');
    const { meetings } = (await res.json()) as { meetings: Array<Record<string, unknown>> };
    return meetings.find((m) => m.meetingId === meetingId);
  };

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: a refused guest joins again at once signed in, and is transcribed as that account`, async () => {
      const account = await accounts.add(platform);
      const guests = platform === 'google_meet' ? 'refused_screen' : 'refused_sign_in';
      const m = await world().start(platform, { meeting: { guests } });
      await world().waitForStatus(m.meetingId, 'lobby');
      m.sim.admit();
      await m.sim.waitForBot((b) => b.captionsOn);
      await m.sim.join('Grace Host');
      await m.sim.speak('Grace Host', growWords('Welcome, the bot signed in fine.'));
      await world().waitForCallback(m.meetingId, (c) => c.eventType === 'segment_finalized', 'a segment');

      expect(m.sim.truth().bots.map((b) => b.account)).to.deep.equal(
        [`${account.sim.email}`],
        'one bot got in, signed in (the refused guest never reached the meeting)',
      );
      expect(await live(m.meetingId)).to.include({ signedInAs: account.name, status: 'live' });
      const statuses = world()
        .callbacks(m.meetingId)
        .filter((c) => c.eventType === 'meeting_status')
        .map(payloadOf);
      expect(statuses.map((p) => p.status)).to.deep.equal(['joining', 'lobby', 'live']);
      expect(statuses.slice(1).every((p) => p.signedInAs === account.name)).to.equal(true);

      const [listed] = await listBotAccounts(world());
      expect(listed).to.include({ meetingsInUse: 1, status: 'active' });
      expect(listed.identity).to.include(`Minutes Bot ${accounts.count()}`);

      await stopUntilEnded(m.meetingId);
      const transcript = (await (await world().get(`/meetings/${m.meetingId}/transcript`)).json()) as Record<
        string,
        unknown
      >;
      expect(transcript).to.include({ signedInAs: account.name });
      const doc = await (await world().get(`/meetings/${m.meetingId}/document`)).text();
      expect(doc).to.match(new RegExp(`signedInAs: "?${account.name}`));
      expect((await listBotAccounts(world()))[0].meetingsInUse, 'the seat is free again').to.equal(0);
    });
  }

  it('signIn never: a refused guest ends in sign_in_required, with accounts available', async () => {
    await accounts.add('google_meet');
    const nativeId = world().newNativeId('google_meet');
    world().sim.meeting(nativeId, { guests: 'refused_screen' });
    const res = await world().startRaw({
      url: world().sim.url('google_meet', nativeId),
      callbackUrl: `${world().rx.url}/hooks/n`,
      signIn: 'never',
    });
    expect(res.status).to.equal(201);
    const { meetingId } = (await res.json()) as { meetingId: string };
    const error = await world().waitForStatus(meetingId, 'error');
    expect(payloadOf(error).reason).to.equal('sign_in_required');
    expect(world().sim.meeting(nativeId).truth().bots).to.deep.equal([]);
  });

  it('signIn always with every account busy: 503 with Retry-After, no meeting, the URL unclaimed', async () => {
    await accounts.add('teams', { maxMeetings: 1 });
    const first = await world().start('teams', { meeting: { lobby: false } });
    expect(first.started).to.deep.include({ status: 'joining' });
    // The first start was auto: a guest where guests are allowed takes no account.
    const always = (nativeId: string) =>
      world().startRaw({
        url: world().sim.url('teams', nativeId),
        callbackUrl: `${world().rx.url}/h`,
        signIn: 'always',
      });
    const id2 = world().newNativeId('teams');
    world().sim.meeting(id2, { lobby: false });
    const taken = await always(id2);
    expect(taken.status).to.equal(201);
    const id3 = world().newNativeId('teams');
    const liveCount = async () =>
      ((await (await world().get('/meetings/status')).json()) as { meetings: unknown[] }).meetings.length;
    const before = await liveCount();
    const refused = await always(id3);
    expect(refused.status).to.equal(503);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(((await refused.json()) as { error: string }).error).to.match(/teams bot account/);
    expect(await liveCount(), 'the refused start made no meeting').to.equal(before);
    const { meetingId: second } = (await taken.json()) as { meetingId: string };
    await stopUntilEnded(second);
    world().sim.meeting(id3, { lobby: false });
    const again = await always(id3);
    expect(again.status, 'the same URL once a seat is free').to.equal(201);
    await world().stop(((await again.json()) as { meetingId: string }).meetingId);
    await world().stop(first.meetingId);
  });

  it('an account whose session the platform no longer takes is marked signed_out and the next one is used', async () => {
    const later = await accounts.add('google_meet');
    // `later` was used a moment ago; a never-used account goes first.
    const warmup = await startRefusingGuests('google_meet');
    await world().waitForStatus(warmup.meetingId, 'live');
    await stopUntilEnded(warmup.meetingId);
    const stale = await accounts.add('google_meet');
    world().sim.signOut(stale.sim.email);

    const m = await startRefusingGuests('google_meet');
    const liveStatus = await world().waitForStatus(m.meetingId, 'live');
    expect(payloadOf(liveStatus).signedInAs).to.equal(later.name);
    const listed = await listBotAccounts(world());
    expect(listed.find((a) => a.id === stale.id)?.status).to.equal('signed_out');
    expect(listed.find((a) => a.id === later.id)?.status).to.equal('active');
    const warning = world()
      .t.warnings()
      .filter((line) => JSON.stringify(line).includes(stale.id));
    expect(warning, 'one warning line names the signed-out account').to.have.length(1);
    await world().stop(m.meetingId);

    // With every account signed out, the meeting fails with bot_account_signed_out, not a loop.
    world().sim.signOut(later.sim.email);
    await removeBotAccount(world(), stale.id);
    const last = await startRefusingGuests('google_meet');
    const error = await world().waitForStatus(last.meetingId, 'error');
    expect(payloadOf(error).reason).to.equal('bot_account_signed_out');
  });

  it('a session never shows: not in a log line, an answer, an event, or the data directory in the clear', async () => {
    const account = await accounts.add('teams');
    const m = await startRefusingGuests('teams');
    await world().waitForStatus(m.meetingId, 'live');
    await stopUntilEnded(m.meetingId);
    const secrets = secretValues(account.sim);
    const answers = await Promise.all(
      ['/meetings/status', `/meetings/${m.meetingId}/transcript`, `/meetings/${m.meetingId}/deliveries`].map(
        async (p) => (await world().get(p)).text(),
      ),
    );
    const listed = JSON.stringify(await listBotAccounts(world()));
    const events = JSON.stringify(
      world()
        .callbacks(m.meetingId)
        .map((c) => c.json),
    );
    const files = filesUnder(world().t.dataDir).map((file) => fs.readFileSync(file).toString('latin1'));
    for (const secret of secrets) {
      expect(world().t.logText(), 'logs').not.to.include(secret);
      for (const answer of [...answers, listed, events]) expect(answer, 'answers and events').not.to.include(secret);
      for (const content of files) expect(content.includes(secret), 'a file of the data directory').to.equal(false);
    }
  });

  it('start: bad signIn and language values are 400s naming the field; a language shows on status', async () => {
    const url = world().sim.url('google_meet', world().newNativeId('google_meet'));
    const callbackUrl = `${world().rx.url}/h`;
    for (const [body, field] of [
      [{ signIn: 'sometimes' }, 'signIn'],
      [{ signIn: true }, 'signIn'],
      [{ language: 'German' }, 'language'],
      [{ language: 'de_DE' }, 'language'],
      [{ language: 7 }, 'language'],
    ] as const) {
      const res = await world().startRaw({ url, callbackUrl, ...body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(((await res.json()) as { error: string }).error).to.include(field);
    }
    const nativeId = world().newNativeId('google_meet');
    const ok = await world().startRaw({
      url: world().sim.url('google_meet', nativeId),
      callbackUrl,
      language: 'de-DE',
    });
    expect(ok.status).to.equal(201);
    const { meetingId } = (await ok.json()) as { meetingId: string };
    expect(await live(meetingId)).to.include({ language: 'de-DE', signedInAs: null });
    expect(statusOf(await stopUntilEnded(meetingId))).to.equal('ended');
  });
});

function secretValues(account: SimAccount): string[] {
  return account.tokens;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.isFile() ? [full] : [];
  });
}
