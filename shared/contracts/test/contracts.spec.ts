import { expect } from 'chai';
import {
  actorMeeting,
  errors,
  evtMeeting,
  firstIssueMessage,
  parseOrBadRequest,
  queueGroup,
  route,
  routes,
  ServiceError,
  startMeetingRequest,
  toWireError,
} from '../src/index.js';

describe('contracts', () => {
  describe('subjects', () => {
    it('builds namespace-first, identifier-last subjects', () => {
      expect(routes.transcripts.append.subject).to.equal('svc.transcripts.append');
      expect(routes.identity.signingSecret.subject).to.equal('svc.identity.signing-secret');
      expect(actorMeeting('meeting_1700000000000_abcdefghij', 'stop')).to.equal(
        'actor.meeting.meeting_1700000000000_abcdefghij.stop',
      );
      expect(evtMeeting('meeting_1700000000000_abcdefghij', 'segment_finalized')).to.equal(
        'evt.meeting.meeting_1700000000000_abcdefghij.segment_finalized',
      );
      expect(evtMeeting('*', '*')).to.equal('evt.meeting.*.*');
      expect(queueGroup('webhooks')).to.equal('q.webhooks');
    });

    it('refuses tokens that would change the subject structure', () => {
      for (const bad of ['a.b', 'a b', '>', '*', '']) {
        expect(() => route('tasks', bad, startMeetingRequest, startMeetingRequest), bad).to.throw();
        expect(() => actorMeeting(bad, 'stop'), bad).to.throw();
      }
    });
  });

  describe('errors across the bus', () => {
    it('round-trips a ServiceError and hides unexpected errors', () => {
      const rebuilt = ServiceError.fromWire(new ServiceError('conflict', 'Meeting has ended', 409).toWire());
      expect(rebuilt).to.be.instanceOf(ServiceError);
      expect(rebuilt).to.include({ code: 'conflict', message: 'Meeting has ended', status: 409, retryable: false });
      expect(toWireError(new Error('db password is hunter2'))).to.deep.equal({
        code: 'internal',
        message: 'Internal error',
        status: 500,
        retryable: false,
      });
    });

    it('carries the field of a 400 and the wait of a 503 at capacity', () => {
      let invalid: unknown;
      try {
        parseOrBadRequest(startMeetingRequest, { url: 'https://meet.google.com/abc-defg-hij', callbackUrl: 7 });
      } catch (err) {
        invalid = err;
      }
      const rebuilt = ServiceError.fromWire((invalid as ServiceError).toWire());
      expect(rebuilt).to.include({
        status: 400,
        field: 'callbackUrl',
        message: 'callbackUrl is required and must be a string',
      });
      const busy = ServiceError.fromWire(errors.atCapacity(10).toWire());
      expect(busy).to.include({
        status: 503,
        retryable: true,
        retryAfterS: 5,
        message: 'All 10 bot seats are busy; retry in 5 s',
      });
      expect(ServiceError.fromWire(errors.notFound().toWire())).to.not.have.property('field');
    });
  });

  describe('REST bodies', () => {
    const valid = { url: 'https://meet.google.com/abc-defg-hij', callbackUrl: 'https://example.com/hook' };

    it('accepts a minimal start request, its defaults filled in by the schema', () => {
      expect(startMeetingRequest.parse(valid)).to.deep.equal({
        ...valid,
        project: 'api',
        saveTranscript: true,
        signIn: 'auto',
        transcription: 'auto',
      });
    });

    it('names the field that is wrong', () => {
      const cases: Array<[unknown, string]> = [
        [{ callbackUrl: valid.callbackUrl }, 'url'],
        [{ ...valid, callbackUrl: 'file:///etc/passwd' }, 'callbackUrl'],
        [{ ...valid, project: '../etc' }, 'project'],
        [{ ...valid, title: 'x'.repeat(201) }, 'title'],
        [{ ...valid, saveTranscript: 'yes' }, 'saveTranscript'],
        [{ ...valid, extra: 1 }, 'extra'],
      ];
      for (const [body, field] of cases) {
        const result = startMeetingRequest.safeParse(body);
        expect(result.success, field).to.equal(false);
        if (!result.success) expect(firstIssueMessage(result.error), field).to.contain(field);
      }
    });
  });
});
