// One mocha configuration for every package: TypeScript through tsx, generous timeouts for
// tests that start real processes (nats-server, Chromium); a failing test that loaded simulated
// pages names the seeds of their markup.
// Test servers on 127.0.0.1 speak HTTPS with a local certificate the tests' process trusts (the
// mocha child that runs them inherits this environment).
const { trustFile } = require('./test/support/local-tls.cjs');
process.env.NODE_EXTRA_CA_CERTS = trustFile();

module.exports = {
  'node-option': ['import=tsx'],
  require: ['./test/support/markup-seeds.hooks.ts'],
  timeout: 20000,
  'forbid-only': true,
  exit: true,
};
