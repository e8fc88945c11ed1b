/**
 * The live meeting page's "Say" box: the bot says the text in the meeting through the same
 * operation as REST and MCP (speak), with a real speech engine (espeak-ng behind
 * /v1/audio/speech); a refusal shows speak's own message. Scripted meeting platform.
 */
import { expect } from 'chai';
import { eventually } from '../../../../test/support/wait.js';
import { speechOutputForSuite } from '../../../../test/support/speech-output/server.js';
import { meetUrl } from '../support/meeting-with-receiver.js';
import { signedInStackPerSuite } from './support/signed-in-stack.js';

describe('web: the Say box of a live meeting', function () {
  this.timeout(60_000);
  const env: Record<string, string> = {};
  const engine = speechOutputForSuite({}, (started) => Object.assign(env, started.env()));
  const t = signedInStackPerSuite(() => env);

  it('says the text in the meeting, refuses an empty one in speak’s words, and is gone once the meeting ended', async () => {
    const started = await t.owner.submit('/meetings', { url: meetUrl(), project: 'general', saveTranscript: 'true' });
    expect(started.status, started.text.slice(0, 300)).to.equal(303);
    const meetingId = started.location!.split('/').pop()!;
    const bot = await t.platform.meeting(meetingId);
    const page = async () => (await t.owner.get(`/meetings/${meetingId}`)).text;
    await eventually(async () => /data-status="live"/.test(await page()), 'the meeting live');
    expect(await page()).to.include('id="say-form"');

    const said = await t.owner.submit(
      `/meetings/${meetingId}/say`,
      { text: 'hello everyone' },
      `/meetings/${meetingId}`,
    );
    expect(said.status).to.equal(303);
    expect(said.location).to.include('notice=speech-queued');
    await eventually(() => bot.said.length === 1, 'the bot said it');
    expect(engine().requests.map((r) => r.input)).to.deep.equal(['hello everyone']);

    const empty = await t.owner.submit(`/meetings/${meetingId}/say`, { text: '  ' }, `/meetings/${meetingId}`);
    expect(empty.status).to.equal(400);
    expect(empty.text).to.include('text must not be empty');

    expect((await t.owner.submit(`/meetings/${meetingId}/stop`, {}, `/meetings/${meetingId}`)).status).to.equal(303);
    await eventually(async () => /data-status="ended"/.test(await page()), 'the meeting ended');
    expect(await page()).to.not.include('id="say-form"');
  });
});
