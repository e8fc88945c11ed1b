/**
 * Bot seats as a client and an operator meet them, in real Chromium: beyond every seat a start
 * answers 503 with Retry-After and a message saying so (load, not a fault); a stopped meeting's
 * seat is free as soon as its browser is, and a start arriving meanwhile waits for it instead of
 * failing; the metrics tell seats in all, in use, and starts refused.
 */
import { expect } from 'chai';
import { WebClient } from '../../services/gateway/test/web/support/web-client.js';
import { eventually } from '../support/wait.js';
import { useWorld, type StartedMeeting } from './support/world.js';

const SEATS = 2;

describe('whole stack in real Chromium: bot seats', function () {
  this.timeout(90_000);
  const world = useWorld({ MAX_MEETINGS_PER_WORKER: String(SEATS) });

  const metric = async (name: string) => {
    const text = await (await fetch(`${world().t.baseUrl}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    return line ? Number(line.split(' ').at(-1)) : NaN;
  };
  const live = async () => {
    const m = await world().start('google_meet', { meeting: { lobby: false } });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    return m;
  };
  const startBody = (m: { sim: StartedMeeting['sim'] }) => ({
    url: world().sim.url('google_meet', m.sim.id),
    callbackUrl: `${world().rx.url}/hooks/notetaker`,
  });

  it('answers 503 with Retry-After beyond every seat, and a start right after a stop gets the freed seat', async () => {
    const held = [await live(), await live()];
    expect(await metric('meeting_bot_seats_total')).to.equal(SEATS);
    expect(await metric('meeting_bot_seats_in_use')).to.equal(SEATS);

    const waiting = world().sim.meeting(world().newNativeId('google_meet'), { lobby: false });
    waiting.join('Bob Example');
    const full = await world().startRaw(startBody({ sim: waiting }));
    expect(full.status).to.equal(503);
    expect(full.headers.get('retry-after')).to.equal('5');
    expect(await full.json()).to.deep.equal({ error: `All ${SEATS} bot seats are busy; retry in 5 s` });
    expect(await metric('meeting_starts_refused_total')).to.equal(1);

    // The web form says the same next to the form.
    const owner = new WebClient(world().t.baseUrl);
    await owner.setup('owner@example.com', 'a long enough password');
    const form = await owner.post('/meetings', {
      _csrf: await owner.csrf('/meetings'),
      url: startBody({ sim: waiting }).url,
      project: 'general',
      saveTranscript: 'true',
    });
    expect([form.status, form.headers.get('retry-after')]).to.deep.equal([503, '5']);
    expect(form.text).to.contain(`All ${SEATS} bot seats are busy; retry in 5 s`);
    expect(await metric('meeting_starts_refused_total')).to.equal(2);
    // Input the service refuses is shown next to its field, in the schema's words (as REST says it).
    for (const [name, fields, message] of [
      ['title', { title: 'x'.repeat(201) }, 'title must be at most 200 characters'],
      ['url', { url: 'https://example.com/not-a-meeting' }, 'url must be a Google Meet'],
    ] as const) {
      const refused = await owner.post('/meetings', {
        _csrf: await owner.csrf('/meetings'),
        url: startBody({ sim: waiting }).url,
        project: 'general',
        ...fields,
      });
      expect(refused.status, name).to.equal(400);
      expect(refused.text, name).to.match(new RegExp(`id="[^"]*${name}-error"[^>]*>${message}`));
    }

    // Stop one, and start at once: the start waits for the seat being freed.
    const stoppedAt = performance.now();
    expect((await world().stop(held[0].meetingId)).status).to.equal(200);
    const next = await world().startRaw(startBody({ sim: waiting }));
    const seatedMs = performance.now() - stoppedAt;
    expect(next.status, JSON.stringify(await next.clone().json())).to.equal(201);
    expect(await metric('meeting_starts_refused_total')).to.equal(2);
    console.log(`      stop -> the next start seated on the freed seat: ${Math.round(seatedMs)} ms`);
  });

  it("frees a stopped live meeting's seat within 2 s; starts each followed at once by a stop never hit a busy seat", async () => {
    // Two seats taken by the previous case: free one and time it.
    const before = await metric('meeting_bot_seats_in_use');
    const { meetings } = (await (await world().get('/meetings/status')).json()) as {
      meetings: Array<{ meetingId: string; status: string }>;
    };
    const one = meetings.find((m) => m.status === 'live')!;
    const stoppedAt = performance.now();
    await world().stop(one.meetingId);
    await eventually(async () => (await metric('meeting_bot_seats_in_use')) < before, 'a seat freed');
    const freedMs = performance.now() - stoppedAt;
    console.log(`      stop -> seat free: ${Math.round(freedMs)} ms`);
    expect(freedMs).to.be.below(2000);

    for (let i = 0; i < 4; i++) {
      const sim = world().sim.meeting(world().newNativeId('google_meet'), { lobby: false });
      const started = await world().startRaw(startBody({ sim }));
      expect(started.status, `start ${i}: ${JSON.stringify(await started.clone().json())}`).to.equal(201);
      const { meetingId } = (await started.json()) as { meetingId: string };
      expect((await world().stop(meetingId)).status).to.equal(200);
    }
    expect(await metric('meeting_starts_refused_total')).to.equal(2);
  });
});
