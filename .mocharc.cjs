// One mocha configuration for every package: TypeScript through tsx, generous timeouts for
// tests that start real processes (nats-server, Chromium); a failing test that loaded simulated
// pages names the seeds of their markup.
module.exports = {
  'node-option': ['import=tsx'],
  require: ['./test/support/markup-seeds.hooks.ts'],
  timeout: 20000,
  'forbid-only': true,
  exit: true,
};
