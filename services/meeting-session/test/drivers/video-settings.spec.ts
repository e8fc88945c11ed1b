import { expect } from 'chai';
import { DRIVER_DEFAULTS, driverOptionsFromEnv } from '../../src/drivers/index.js';

describe('BOT_VIDEO_SAVINGS and BOT_WINDOW_SIZE from the environment', () => {
  it('takes a list of steps, "all" or "none"; unset, every step', () => {
    expect(driverOptionsFromEnv({ BOT_VIDEO_SAVINGS: 'inactive, hide' }).videoSavings).to.deep.equal([
      'inactive',
      'hide',
    ]);
    expect(driverOptionsFromEnv({ BOT_VIDEO_SAVINGS: 'all' }).videoSavings).to.deep.equal([
      'platform',
      'hide',
      'inactive',
    ]);
    expect(driverOptionsFromEnv({ BOT_VIDEO_SAVINGS: 'none' }).videoSavings).to.deep.equal([]);
    expect(driverOptionsFromEnv({}).videoSavings).to.equal(undefined);
    expect(DRIVER_DEFAULTS.videoSavings).to.deep.equal(['platform', 'hide', 'inactive']);
  });

  it('refuses an unknown step, naming the variable and the step', () => {
    expect(() => driverOptionsFromEnv({ BOT_VIDEO_SAVINGS: 'hide,blur' })).to.throw(/BOT_VIDEO_SAVINGS[\s\S]*"blur"/);
  });

  it('takes a window size WIDTHxHEIGHT within 320x180 and 3840x2160; unset, 1280x720', () => {
    expect(driverOptionsFromEnv({ BOT_WINDOW_SIZE: '640x360' }).windowSize).to.deep.equal({ width: 640, height: 360 });
    expect(DRIVER_DEFAULTS.windowSize).to.deep.equal({ width: 1280, height: 720 });
    for (const bad of ['640', '640x', '100x100', '9999x9999', '640x360x2']) {
      expect(() => driverOptionsFromEnv({ BOT_WINDOW_SIZE: bad }), bad).to.throw(/BOT_WINDOW_SIZE/);
    }
  });
});
