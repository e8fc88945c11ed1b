import { expect } from 'chai';
import { ConfigError, loadBaseConfig } from '../src/config.js';

describe('config from the environment', () => {
  it('applies the documented defaults', () => {
    const config = loadBaseConfig({});
    expect(config).to.include({
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'info',
    });
    expect(config.contentRoot).to.equal(config.dataDir);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadBaseConfig({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'LOG_LEVEL']) expect(message).to.contain(name);
    expect((error as ConfigError).problems).to.have.length(2);
  });
});
