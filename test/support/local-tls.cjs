// A certificate for test servers on 127.0.0.1 (the calendar providers' local stand-ins), and the
// trust in it: the test process gets it through NODE_EXTRA_CA_CERTS, as an operator's private CA
// would be trusted. Made once per machine user (10 years) by a child process, since the mocha
// configuration that calls this is synchronous; written atomically so parallel runs share it.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const dir = path.join(os.tmpdir(), `notetaker-test-tls-${process.getuid?.() ?? 'user'}`);
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');

const MAKE = `
const { generate } = require('selfsigned');
const fs = require('node:fs');
const [dir, certFile, keyFile] = process.argv.slice(1);
generate([{ name: 'commonName', value: 'notetaker local test CA' }], {
  keyType: 'ec',
  algorithm: 'sha256',
  notAfterDate: new Date(Date.now() + 3650 * 86400000),
  extensions: [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
  ],
}).then((pems) => {
  const suffix = '.' + process.pid;
  fs.writeFileSync(keyFile + suffix, pems.private, { mode: 0o600 });
  fs.writeFileSync(certFile + suffix, pems.cert);
  fs.renameSync(keyFile + suffix, keyFile);
  fs.renameSync(certFile + suffix, certFile);
});
`;

function localTls() {
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    execFileSync(process.execPath, ['-e', MAKE, dir, certFile, keyFile], { cwd: __dirname, stdio: 'inherit' });
  }
  return { certFile, keyFile };
}

/**
 * What NODE_EXTRA_CA_CERTS must name for the tests: our certificate, beside whatever the machine
 * already trusts that way (a sandbox or a company proxy may set it).
 */
function trustFile() {
  const { certFile } = localTls();
  const before = process.env.NODE_EXTRA_CA_CERTS;
  if (!before || before === certFile) return certFile;
  const bundle = path.join(dir, `trust-${Buffer.from(before).toString('hex').slice(0, 40)}.pem`);
  const text = `${fs.readFileSync(before, 'utf8').trimEnd()}\n${fs.readFileSync(certFile, 'utf8')}`;
  const temp = `${bundle}.${process.pid}`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, bundle);
  return bundle;
}

module.exports = { localTls, trustFile };
