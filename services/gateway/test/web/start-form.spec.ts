/**
 * The web start form's join options over HTTP, on the real stack with the scripted platform: how
 * the bot joins (signIn), the spoken language and a Zoom passcode reach the bot, and bad values
 * come back next to their fields, checked by the same schema as REST's.
 */
import { expect } from 'chai';
import { eventually } from '../../../../test/support/wait.js';
import { signedInStackPerSuite } from './support/signed-in-stack.js';

describe('web application: the start form', () => {
  const t = signedInStackPerSuite();

  const start = (fields: Record<string, string>) =>
    t.owner.submit('/meetings', {
      url: 'https://meet.google.com/frm-test-abc',
      project: 'general',
      saveTranscript: 'true',
      ...fields,
    });

  it('offers how the bot joins and the spoken language', async () => {
    const page = await t.owner.get('/meetings');
    expect(page.text).to.match(/<select id="f-signIn" name="signIn"/);
    for (const mode of ['auto', 'always', 'never']) expect(page.text).to.contain(`value="${mode}"`);
    expect(page.text).to.match(/<input\s+id="f-language"\s+name="language"/);
    expect(page.text).to.match(/<input\s+id="f-passcode"\s+name="passcode"/);
  });

  it('shows a bad language or signIn next to its field, and starts nothing', async () => {
    const badLanguage = await start({ signIn: 'auto', language: 'German' });
    expect(badLanguage.status).to.equal(400);
    expect(badLanguage.text).to.match(/id="f-language-error"[^>]*>language must be a BCP 47 language tag/);
    const badMode = await start({ signIn: 'sometimes', language: '' });
    expect(badMode.status).to.equal(400);
    expect(badMode.text).to.match(/id="f-signIn-error"[^>]*>signIn must be one of auto, always, never/);
    const badPasscode = await start({ url: 'https://zoom.us/j/81234567890', passcode: 'x'.repeat(33) });
    expect(badPasscode.status).to.equal(400);
    expect(badPasscode.text).to.match(/id="f-passcode-error"[^>]*>passcode must be a string of 1-32 characters/);
    expect(t.platform.started).to.have.length(0);
  });

  it('passes signIn and the language to the bot', async () => {
    const res = await start({ signIn: 'never', language: 'de-DE' });
    expect(res.status).to.equal(303);
    await eventually(() => t.platform.started.length === 1, 'the bot started');
    expect(t.platform.started[0].target).to.include({ language: 'de-DE', account: null });
  });

  it('passes a Zoom passcode to the bot', async () => {
    const res = await start({ url: 'https://zoom.us/j/81234567891', passcode: 'Zq81' });
    expect(res.status).to.equal(303);
    await eventually(() => t.platform.started.length === 2, 'the Zoom bot started');
    expect(t.platform.started[1].target).to.include({ platform: 'zoom', passcode: 'Zq81' });
  });
});
