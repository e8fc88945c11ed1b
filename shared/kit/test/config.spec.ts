import { expect } from 'chai';
import { ConfigError, loadBaseConfig } from '../src/config.js';

describe('config from the environment', () => {
  it('applies the documented defaults', () => {
    const config = loadBaseConfig({});
    expect(config).to.include({
      port: 8080,
      host: '127.0.0.1',
      botHeadless: true,
      botDisplayName: 'Notetaker',
      logLevel: 'info',
    });
    expect(config.contentRoot).to.equal(config.dataDir);
    expect(config.botBrowserArgs).to.deep.equal([]);
  });

  it('reads BOT_BROWSER_ARGS as a JSON array, keeping flags that contain spaces whole', () => {
    const args = ['--host-resolver-rules=MAP meet.google.com 127.0.0.1:8443', '--ignore-certificate-errors'];
    expect(loadBaseConfig({ BOT_BROWSER_ARGS: JSON.stringify(args) }).botBrowserArgs).to.deep.equal(args);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadBaseConfig({ PORT: 'eighty', BOT_BROWSER_ARGS: '--no-sandbox', BOT_HEADLESS: 'maybe', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'BOT_BROWSER_ARGS', 'BOT_HEADLESS', 'LOG_LEVEL']) expect(message).to.contain(name);
    expect((error as ConfigError).problems).to.have.length(4);
  });
});
