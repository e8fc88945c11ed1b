import { expect } from 'chai';
import { driverOptionsFromEnv } from '../../src/drivers/index.js';

describe('Driver options from the environment', () => {
  it('maps CHROME_PATH, BOT_HEADLESS, BOT_BROWSER_ARGS and BOT_DISPLAY_NAME', () => {
    expect(
      driverOptionsFromEnv({
        CHROME_PATH: '/opt/chrome',
        BOT_HEADLESS: 'false',
        BOT_BROWSER_ARGS: JSON.stringify([
          '--host-resolver-rules=MAP meet.google.com 127.0.0.1:8443',
          '--ignore-certificate-errors',
        ]),
        BOT_DISPLAY_NAME: ' Minutes ',
      }),
    ).to.deep.equal({
      chromePath: '/opt/chrome',
      headless: false,
      extraArgs: ['--host-resolver-rules=MAP meet.google.com 127.0.0.1:8443', '--ignore-certificate-errors'],
      displayName: 'Minutes',
    });
  });

  it('leaves unset variables to the defaults (headless unless told otherwise)', () => {
    expect(driverOptionsFromEnv({})).to.deep.equal({});
    expect(driverOptionsFromEnv({ BOT_HEADLESS: 'true' }).headless).to.equal(true);
    expect(driverOptionsFromEnv({ BOT_HEADLESS: '0' }).headless).to.equal(false);
  });

  it('refuses a BOT_BROWSER_ARGS that is not a JSON array of strings', () => {
    for (const bad of ['--lang=en-US', '{"a":1}', '[1, 2]']) {
      expect(() => driverOptionsFromEnv({ BOT_BROWSER_ARGS: bad })).to.throw(/JSON array of strings/);
    }
  });
});
