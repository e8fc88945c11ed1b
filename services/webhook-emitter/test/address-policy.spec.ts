import { expect } from 'chai';
import { errors, ServiceError } from '@notetaker/contracts';
import { startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { Sender } from '../src/delivery/sender.js';
import { AddressPolicy, callbackUrlProblem, createGuardedAgents, type Resolver, classifyIp } from '@notetaker/net';
import { envelope, newMeetingId, startHarness, waitForLog, type Harness, type Token } from './support/harness.js';
import { rejection } from '../../../test/support/rejection.js';

describe('webhook emitter: callback address policy', () => {
  describe('address classes', () => {
    const cases: Array<[string, string]> = [
      ['169.254.169.254', 'forbidden'],
      ['::ffff:169.254.169.254', 'forbidden'],
      ['::ffff:a9fe:a9fe', 'forbidden'],
      ['0:0:0:0:0:ffff:a9fe:a9fe', 'forbidden'],
      ['::169.254.169.254', 'forbidden'],
      ['64:ff9b::a9fe:a9fe', 'forbidden'],
      ['fe80::1', 'forbidden'],
      ['FE80::1%eth0', 'forbidden'],
      ['febf:ffff::1', 'forbidden'],
      ['fd00:ec2::254', 'forbidden'],
      ['100.100.100.200', 'forbidden'],
      ['0.0.0.0', 'forbidden'],
      ['::', 'forbidden'],
      ['224.0.0.1', 'forbidden'],
      ['127.0.0.1', 'private'],
      ['127.255.0.9', 'private'],
      ['::1', 'private'],
      ['::ffff:127.0.0.1', 'private'],
      ['10.1.2.3', 'private'],
      ['172.31.255.1', 'private'],
      ['192.168.0.10', 'private'],
      ['fd12:3456::1', 'private'],
      ['100.64.0.1', 'private'],
      ['172.32.0.1', 'public'],
      ['8.8.8.8', 'public'],
      ['2001:4860:4860::8888', 'public'],
      ['::ffff:8.8.8.8', 'public'],
      // Other spellings of the same addresses: octal, hex and short IPv4; 6to4, SIIT, NAT64.
      ['0251.0376.0251.0376', 'forbidden'],
      ['0xa9fea9fe', 'forbidden'],
      ['0xa9.0xfe.0xa9.0xfe', 'forbidden'],
      ['2852039166', 'forbidden'],
      ['0177.0.0.1', 'private'],
      ['0x7f.0.0.1', 'private'],
      ['127.1', 'private'],
      ['2130706433', 'private'],
      ['012.1.2.3', 'private'],
      ['2002:a9fe:a9fe::', 'forbidden'],
      ['2002:7f00:1::1', 'private'],
      ['2002:0808:0808::1', 'public'],
      ['::ffff:0:a9fe:a9fe', 'forbidden'],
      ['64:ff9b::127.0.0.1', 'private'],
      ['64:ff9b::808:808', 'public'],
      ['[::ffff:a9fe:a9fe]', 'forbidden'],
      ['::1.2.3.4.5', 'forbidden'],
      ['not-an-ip', 'forbidden'],
    ];
    for (const [address, kind] of cases) {
      it(`${address} is ${kind}`, () => expect(classifyIp(address).kind).to.equal(kind));
    }
  });

  describe('at registration (400 at start)', () => {
    const open = new AddressPolicy({ allowPrivate: true, allowedHosts: [] });
    const closed = new AddressPolicy({ allowPrivate: false, allowedHosts: ['hooks.internal', '10.9.0.0/16'] });
    it('accepts http(s) to public names and, by default, loopback', () => {
      expect(callbackUrlProblem('https://example.com/hook', open)).to.equal(null);
      expect(callbackUrlProblem('http://127.0.0.1:9/hook', open)).to.equal(null);
    });
    for (const url of [
      'file:///etc/passwd',
      'gopher://127.0.0.1:70/_x',
      'ftp://example.com/',
      'javascript:alert(1)',
      'not a url',
    ]) {
      it(`rejects ${url}`, () => expect(callbackUrlProblem(url, open)).to.equal('callbackUrl must be an http(s) URL'));
    }
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]/',
      'http://2852039166/', // 169.254.169.254 written as one number
      'http://0xa9.0xfe.0xa9.0xfe/',
    ]) {
      it(`rejects ${url} always`, () =>
        expect(callbackUrlProblem(url, open)).to.match(/^callbackUrl points to a refused address/));
    }
    it('rejects loopback and private literals with CALLBACK_ALLOW_PRIVATE=false, except allowed CIDRs', () => {
      expect(callbackUrlProblem('http://127.0.0.1/', closed)).to.match(
        /loopback address, CALLBACK_ALLOW_PRIVATE=false/,
      );
      expect(callbackUrlProblem('http://10.1.0.1/', closed)).to.match(/refused/);
      expect(callbackUrlProblem('http://10.9.8.7/', closed)).to.equal(null);
      expect(closed.refusal('hooks.internal', '10.1.0.1')).to.equal(null);
      expect(closed.refusal('other.internal', '10.1.0.1')).to.match(/private/);
    });
  });

  describe('at connect time (after DNS)', () => {
    const policy = new AddressPolicy({ allowPrivate: true, allowedHosts: [] });
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]:80/',
    ]) {
      it(`never opens a connection to ${url}`, async () => {
        const agents = createGuardedAgents({ policy, maxSocketsPerReceiver: 1 });
        try {
          const result = await new Sender(agents, 5000).post(url, Buffer.from('{}'), {});
          expect(result.kind).to.equal('refused');
          expect(result.error).to.match(/^address refused: link-local/);
          expect(result.durationMs).to.be.below(500); // refused before any connect attempt could time out
        } finally {
          agents.destroy();
        }
      });
    }
  });

  describe('through the service', () => {
    let rx: CallbackReceiver;
    let h: Harness | undefined;
    let token: Token;
    // DNS stand-in: names a test controls, resolving where a hostile one would.
    const resolver: Resolver = (hostname, callback) => {
      const table: Record<string, Array<{ address: string; family: number }>> = {
        'metadata.test': [{ address: '169.254.169.254', family: 4 }],
        'mapped.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
        'mixed.test': [
          { address: '169.254.169.254', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ],
        localhost: [{ address: '127.0.0.1', family: 4 }],
      };
      const found = table[hostname];
      if (found) callback(null, found);
      else callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    };

    async function withEmitter(env: Record<string, string>) {
      await h?.stop();
      h = await startHarness(env, { resolver });
      token = await h.createToken();
    }
    async function deliverOne(url: string) {
      const meetingId = newMeetingId();
      await h!.register(meetingId, url, token.id);
      h!.publish(envelope(meetingId, 1));
      return waitForLog(
        h!,
        token.caller,
        meetingId,
        (l) => l.deliveries[0]?.outcome !== undefined && l.deliveries[0].outcome !== 'pending',
      );
    }

    before(async () => {
      rx = await startCallbackReceiver();
    });
    after(async () => {
      await h?.stop();
      await rx.close();
    });

    it('delivers to 127.0.0.1 by default', async () => {
      await withEmitter({});
      const log = await deliverOne(`${rx.url}/a`);
      expect(log.deliveries[0].outcome).to.equal('delivered');
    });

    it('refuses names that resolve to metadata addresses, in either spelling, without sending', async () => {
      const before = rx.received.length;
      for (const host of ['metadata.test', 'mapped.test']) {
        const log = await deliverOne(`http://${host}:${rx.port}/b`);
        expect(log.deliveries[0].outcome).to.equal('dead_lettered');
        expect(log.deliveries[0].attempts[0].error).to.match(/^address refused: link-local/);
      }
      expect(rx.received.length).to.equal(before);
    });

    it('connects only to the allowed address of a name that resolves to several', async () => {
      const log = await deliverOne(`http://mixed.test:${rx.port}/c`);
      expect(log.deliveries[0].outcome).to.equal('delivered');
    });

    it('with CALLBACK_ALLOW_PRIVATE=false: 400 for a private literal, refused at connect for a private name', async () => {
      await withEmitter({ CALLBACK_ALLOW_PRIVATE: 'false' });
      const err = await rejection(h!.register(newMeetingId(), `${rx.url}/d`, token.id));
      expect(err).to.be.instanceOf(ServiceError);
      expect(err.status).to.equal(errors.badRequest('').status);
      expect(err.message).to.match(/loopback address, CALLBACK_ALLOW_PRIVATE=false/);
      const before = rx.received.length;
      const log = await deliverOne(`http://localhost:${rx.port}/d`);
      expect(log.deliveries[0].outcome).to.equal('dead_lettered');
      expect(log.deliveries[0].attempts[0].error).to.equal(
        'address refused: loopback address, CALLBACK_ALLOW_PRIVATE=false',
      );
      expect(rx.received.length).to.equal(before);
    });

    it('CALLBACK_ALLOWED_HOSTS lets named hosts and CIDRs through when private is refused', async () => {
      await withEmitter({ CALLBACK_ALLOW_PRIVATE: 'false', CALLBACK_ALLOWED_HOSTS: 'localhost, 127.0.0.0/8' });
      expect((await deliverOne(`http://localhost:${rx.port}/e`)).deliveries[0].outcome).to.equal('delivered');
      expect((await deliverOne(`${rx.url}/e`)).deliveries[0].outcome).to.equal('delivered');
      // Never the metadata range, whatever the allow list says.
      expect((await deliverOne(`http://metadata.test:${rx.port}/e`)).deliveries[0].outcome).to.equal('dead_lettered');
    });

    it('rejects file: and gopher: callback URLs at start', async () => {
      for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1:70/']) {
        const err = await rejection(h!.register(newMeetingId(), url, token.id));
        expect([err.status, err.message]).to.deep.equal([400, 'callbackUrl must be an http(s) URL']);
      }
    });
  });
});
