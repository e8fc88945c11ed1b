/**
 * The meeting page's recording in each state of the contract (capabilities/recordings.ts), as the
 * page renders it from a recording's info: `incomplete` names each gap's times and reason in
 * words, `failed` says nothing was stored (no player, no download), `recording` after the meeting
 * ended says the audio is still being stored and how much is left; and every warning a meeting
 * may carry has words on the page. (The whole stack's saved and growing recordings are in
 * recording-player.spec.ts.)
 */
import { expect } from 'chai';
import {
  meetingWarning,
  RECORDING_GAP_REASONS,
  RECORDING_STATES,
  recordingInfo,
  type RecordingInfo,
} from '@notetaker/contracts';
import { CAPTION_WARNING_TEXT } from '../../src/web/pages/meeting-view.js';
import { GAP_REASON_TEXT, recordingFigure, recordingSummary } from '../../src/web/pages/recording-figure.js';

const MEETING = 'meeting_1700000000000_states0001';
const info = (fields: Partial<RecordingInfo>): RecordingInfo =>
  recordingInfo.parse({
    status: 'saved',
    format: 'audio/ogg',
    bytes: 120_000,
    durationMs: 754_000,
    startedAt: '2030-01-02T03:04:05.000Z',
    url: `/api/v1/meetings/${MEETING}/recording`,
    ...fields,
  });
const figure = (recording: RecordingInfo, live = false) => recordingFigure(MEETING, recording, live).value;

describe('web application: the recording in each of its states', () => {
  it('saved: the player, the length and the download', () => {
    const out = figure(info({ status: 'saved' }));
    expect(out).to.contain(`<figure id="recording" class="recording" data-started-at="2030-01-02T03:04:05.000Z">`);
    expect(out).to.contain(
      `<audio id="recording-player" controls preload="metadata" src="/meetings/${MEETING}/recording">`,
    );
    expect(out).to.contain('Recording, 12:34.');
    expect(out).to.contain(`download="${MEETING}.ogg"`);
    expect(out).not.to.contain('recording-gaps');
  });

  it('incomplete: the player, and each gap with its times and its reason in words', () => {
    const recording = info({
      status: 'incomplete',
      gaps: [
        { startMs: 12_000, endMs: 19_500, reason: 'spool_full' },
        { startMs: 600_000, endMs: 754_000, reason: 'worker_lost' },
      ],
    });
    const out = figure(recording);
    expect(out).to.contain('<audio id="recording-player"');
    expect(out).to.contain('Recording, 12:34, with 2 parts of the meeting missing:');
    expect(out).to.contain(
      '<li><small>From 0:12 to 0:20: storage refused the audio while the bot&#39;s disk spool was full.</small></li>',
    );
    expect(out).to.contain(
      '<li><small>From 10:00 to 12:34: the bot was lost before it could send this audio.</small></li>',
    );
    expect(out.indexOf('From 0:12')).to.be.below(out.indexOf('From 10:00'));
  });

  it('has words for every reason a gap may have', () => {
    for (const reason of RECORDING_GAP_REASONS) {
      expect(GAP_REASON_TEXT[reason], reason).to.be.a('string').and.not.equal(reason);
      const out = figure(info({ status: 'incomplete', gaps: [{ startMs: 0, endMs: 1000, reason }] }));
      expect(out).to.contain(`From 0:00 to 0:01: ${GAP_REASON_TEXT[reason].replace(/'/g, '&#39;')}.`);
    }
  });

  it('failed: says nothing was stored, with no player and nothing to download', () => {
    const out = figure(info({ status: 'failed', bytes: 0, durationMs: 0 }));
    expect(out).to.contain('The recording failed: nothing of it was stored.');
    expect(out).not.to.contain('<audio');
    expect(out).not.to.contain('download=');
  });

  it('recording after the meeting ended: still being stored, with what is left to send', () => {
    const out = figure(info({ status: 'recording', pendingBytes: 3_400_000 }));
    expect(out).to.contain('The meeting has ended; its recording is still being stored (3.4 MB still to send).');
    expect(out).to.contain('<audio id="recording-player"'); // what is stored so far plays
    expect(recordingSummary(info({ status: 'recording', bytes: 0 }), false)).to.equal(
      'The meeting has ended; its recording is still being stored. Reload the page to play all of it once stored.',
    );
    const nothingYet = figure(info({ status: 'recording', bytes: 0, pendingBytes: 48_000 }));
    expect(nothingYet).not.to.contain('<audio');
    expect(nothingYet).to.contain('(48 KB still to send)');
  });

  it('recording while live: in progress, and how the page captures when it falls short', () => {
    expect(figure(info({ status: 'recording', capture: 'ok' }), true)).to.contain('Recording in progress');
    expect(figure(info({ status: 'recording', capture: 'starved' }), true)).to.contain('short of CPU');
    expect(figure(info({ status: 'recording', capture: 'none' }), true)).to.contain('cannot capture audio');
    expect(figure(info({ status: 'recording', capture: 'ok' }), true)).not.to.contain('short of CPU');
  });

  it('has a summary for every state of the contract', () => {
    for (const status of RECORDING_STATES) {
      for (const live of [true, false]) expect(recordingSummary(info({ status }), live), status).to.be.a('string');
    }
  });

  it('has words for every warning a meeting may carry, recording_capture_degraded among them', () => {
    for (const warning of meetingWarning.options) {
      expect(CAPTION_WARNING_TEXT[warning], warning).to.be.a('string').and.not.equal(warning);
    }
    expect(CAPTION_WARNING_TEXT.recording_capture_degraded).to.match(/too little audio/);
  });
});
