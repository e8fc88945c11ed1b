// One mocha configuration for every package: TypeScript through tsx, generous timeouts for
// tests that start real processes (nats-server, Chromium).
module.exports = {
  'node-option': ['import=tsx'],
  timeout: 20000,
  'forbid-only': true,
  exit: true,
};
