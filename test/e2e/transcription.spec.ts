/**
 * The main path a customer relies on, in real Chromium against both simulated platforms: start over
 * REST, the bot waits in the lobby, is admitted, turns captions on and transcribes; stop over REST.
 * The receiver must get every event signed and in sequence, the finalized segments must be what was
 * said, and the transcript and document endpoints must hold the same segments; the saved document
 * shows in the project's meeting history and in search.
 */
import { expect } from 'chai';
import { expectKeptAsSaid, finalizedSegments, finishedStream } from './support/stream.js';
import { endedBy, shape } from './support/shape.js';
import { aliceThenBob } from './support/conversation.js';
import { payloadOf, PLATFORMS, useWorld } from './support/world.js';
import { eventuallyPasses } from '../support/wait.js';

describe('whole stack in real Chromium: a transcribed meeting, start to stop', function () {
  this.timeout(60_000);
  const world = useWorld();

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: joining, lobby, live, participant, captions, segments equal to what was said; stop -> leaving, document_saved, ended`, async () => {
      const title = `Weekly sync ${label}`;
      const m = await world().start(platform, { title });
      expect(m.started).to.include({ status: 'joining', platform, project: 'api' });
      m.sim.join('Alice Example');

      await world().waitForStatus(m.meetingId, 'lobby');
      m.sim.admit();
      await world().waitForStatus(m.meetingId, 'live');
      await world().waitForCallback(m.meetingId, (c) => c.eventType === 'participant_joined', 'participant_joined');
      await m.sim.waitForBot((bot) => bot.captionsOn);

      // A correction and re-punctuation while Alice speaks; Bob taking over ends her turn.
      await aliceThenBob(m.sim);
      await world().waitForCallback(
        m.meetingId,
        () => finalizedSegments(world().callbacks(m.meetingId)).length === 2,
        'two segment_finalized',
      );

      const listed = await (await world().get('/meetings/status')).json();
      expect(listed.meetings.find((x: { meetingId: string }) => x.meetingId === m.meetingId)).to.include({
        status: 'live',
        participantCount: 1,
        segmentCount: 2,
        title,
      });

      const stop = await world().stop(m.meetingId);
      expect(stop.status).to.equal(200);
      expect(await stop.json()).to.deep.equal({ meetingId: m.meetingId, status: 'stopping' });

      const callbacks = await finishedStream(world(), m, 'ended');
      expect(shape(callbacks)).to.deep.equal([
        'meeting_status:joining',
        'meeting_status:lobby',
        'meeting_status:live',
        'participant_joined',
        'captions',
        ...endedBy('stopped'),
      ]);
      const truth = m.sim.truth();
      expect(truth.segments.map((s) => s.text)).to.deep.equal([
        'I think they’re going to ship on Friday.',
        'Great, then I will update the release notes.',
      ]);
      expect(payloadOf(callbacks.find((c) => c.eventType === 'participant_joined')!)).to.include({
        name: 'Alice Example',
        participantCount: 1,
      });
      const documentPath = String(m.started.documentPath);
      expect(payloadOf(callbacks.find((c) => c.eventType === 'document_saved')!)).to.deep.equal({
        documentPath,
        segmentsWritten: 2,
        totalSegments: 2,
      });

      // The bot joined muted, camera off, in English, and left with the platform's leave button.
      expect(truth.bots).to.have.length(1);
      expect(truth.bots[0]).to.include({ name: 'Notetaker', micOn: false, camOn: false, leftVia: 'leave_button' });
      expect(truth.pageLoads[0].acceptLanguage).to.match(/^en-US/);

      await expectKeptAsSaid(world(), m, callbacks, 'ended', { document: true });

      // The saved transcript is in the project's meeting history, and searchable.
      const history = await (await world().get('/projects/api/meetings')).json();
      expect(history.meetings.find((x: { meetingId: string }) => x.meetingId === m.meetingId)).to.deep.include({
        filename: documentPath.split('/').at(-1),
        title,
        status: 'completed',
        participants: ['Alice Example'],
      });
      await eventuallyPasses(async () => {
        const found = await (await world().get(`/search?q=${encodeURIComponent('release notes')}`)).json();
        expect(found.results.map((r: { meetingId: string }) => r.meetingId)).to.include(m.meetingId);
      });

      const again = await world().stop(m.meetingId);
      expect(again.status).to.equal(409);
      expect(await again.json()).to.deep.equal({ error: 'Meeting has ended' });
      const after = await (await world().get('/meetings/status')).json();
      expect(after.meetings.map((x: { meetingId: string }) => x.meetingId)).to.not.include(m.meetingId);
    });
  }
});
