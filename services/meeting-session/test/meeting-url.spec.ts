import { expect } from 'chai';
import { ServiceError } from '@notetaker/contracts';
import { parseMeetingUrl } from '../src/meeting-url.js';

const THREAD = '19:meeting_NjM1ZDk3YWQtNmQ4Yy00ZmE0LWJlZDktNzQ3ZTc4ZDY2YzY5@thread.v2';
const THREAD_ENC = encodeURIComponent(THREAD); // 19%3Ameeting_...%40thread.v2
const CONTEXT = encodeURIComponent(
  '{"Tid":"72f988bf-86f1-41af-91ab-2d7cd011db47","Oid":"2b1a6e0d-1f9a-4f1c-9b1e-6f1f1c1f1c1f"}',
);

/** [url, platform, native id] for links that must be accepted. */
const ACCEPTED: Array<[string, 'google_meet' | 'teams' | 'zoom', string]> = [
  ['https://meet.google.com/abc-defg-hij', 'google_meet', 'abc-defg-hij'],
  ['https://meet.google.com/ABC-DEFG-HIJ', 'google_meet', 'abc-defg-hij'],
  ['https://MEET.GOOGLE.COM/Abc-Defg-Hij/', 'google_meet', 'abc-defg-hij'],
  ['https://meet.google.com/abc-defg-hij?authuser=1&hs=122', 'google_meet', 'abc-defg-hij'],
  ['https://meet.google.com/abc-defg-hij/?pli=1', 'google_meet', 'abc-defg-hij'],
  ['meet.google.com/abc-defg-hij', 'google_meet', 'abc-defg-hij'],
  [`https://teams.microsoft.com/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT}`, 'teams', `${THREAD}/0`],
  [
    `https://teams.microsoft.com/l/meetup-join/${THREAD_ENC.replace('%3A', '%3a')}/0?context=${CONTEXT}`,
    'teams',
    `${THREAD}/0`,
  ],
  [
    `https://teams.microsoft.com/l/meetup-join/${THREAD}/1712345678901?context=${CONTEXT}`,
    'teams',
    `${THREAD}/1712345678901`,
  ],
  [`https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(THREAD_ENC)}/0`, 'teams', `${THREAD}/0`],
  [
    `https://teams.microsoft.com/v2/?meetingjoin=true#/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT}&anon=true`,
    'teams',
    `${THREAD}/0`,
  ],
  [`https://teams.microsoft.com/_#/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT}`, 'teams', `${THREAD}/0`],
  [
    `https://teams.microsoft.com/dl/launcher/launcher.html?url=${encodeURIComponent(`/_#/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT}&anon=true`)}&type=meetup-join&deeplinkId=7a3f&directDl=true&msLaunch=true&enableMobilePage=true&suppressPrompt=true`,
    'teams',
    `${THREAD}/0`,
  ],
  ['https://teams.microsoft.com/meet/2345678901234?p=AbCdEfGhIj', 'teams', 'meet:2345678901234'],
  ['https://teams.live.com/meet/9876543210987?p=XyZ123abc', 'teams', 'meet:9876543210987'],
  ['https://teams.live.com/meet/9876543210987', 'teams', 'meet:9876543210987'],
  ['https://us05web.zoom.us/j/85612345678?pwd=aBcDeFgHiJkLmNoPqRsTuVwXyZ.1', 'zoom', '85612345678'],
  ['https://acme.zoom.us/j/85612345678', 'zoom', '85612345678'],
  ['https://zoom.us/j/85612345678', 'zoom', '85612345678'],
  ['zoom.us/j/856-1234-5678?pwd=x1', 'zoom', '85612345678'],
  ['https://zoom.us/j/856%201234%205678', 'zoom', '85612345678'],
  ['https://app.zoom.us/wc/join/85612345678', 'zoom', '85612345678'],
  ['https://app.zoom.us/wc/join/85612345678?pwd=aBc123', 'zoom', '85612345678'],
  ['https://app.zoom.us/wc/85612345678/join?pwd=aBc123&fromPWA=1', 'zoom', '85612345678'],
  ['https://app.zoom.us/wc/85612345678/join', 'zoom', '85612345678'],
  ['https://zoom.us/my/Ada.Lovelace', 'zoom', 'ada.lovelace'],
  ['https://acme.zoom.us/my/adalovelace?pwd=Zz9', 'zoom', 'adalovelace'],
];

/** Links that must be refused with a 400 naming the url field and the two platforms. */
const REJECTED: string[] = [
  '',
  'not a url',
  'https://meet.google.com/',
  'https://meet.google.com/lookup/abcdefgh',
  'https://meet.google.com/new',
  'https://meet.google.com/landing',
  'https://meet.google.com/abc-defg-hij/extra',
  'https://meet.google.com/abcdefghij',
  'https://meet.google.com/abc-defg-hi1',
  'https://meet.google.com:8443/abc-defg-hij',
  'https://user:pw@meet.google.com/abc-defg-hij',
  'ftp://meet.google.com/abc-defg-hij',
  'javascript:alert(1)//meet.google.com/abc-defg-hij',
  'https://meet.google.com.evil.example/abc-defg-hij',
  'https://evil.example/meet.google.com/abc-defg-hij',
  'https://zoom.us/',
  'https://zoom.us/j/',
  'https://zoom.us/j/12345',
  'https://zoom.us/j/abcdefghij',
  'https://zoom.us/s/85612345678',
  'https://zoom.us/j/85612345678/extra',
  'https://app.zoom.us/wc/home',
  'https://zoom.us/my/ab',
  'https://zoom.us/my/9lives',
  'https://zoom.us.evil.example/j/85612345678',
  'https://evilzoom.us/j/85612345678',
  'https://zoom.us:444/j/85612345678',
  'https://teams.microsoft.com/',
  'https://teams.microsoft.com/l/channel/19%3Aabc%40thread.tacv2/General?groupId=1&tenantId=2',
  'https://teams.microsoft.com/l/chat/19%3Aabc%40thread.v2/conversations',
  `https://teams.microsoft.com/l/meetup-join/${THREAD_ENC}`,
  `https://teams.microsoft.com/l/meetup-join/not-a-thread/0?context=${CONTEXT}`,
  `https://teams.microsoft.com/l/meetup-join/${THREAD_ENC}/abc`,
  `https://teams.microsoft.com/dl/launcher/launcher.html?url=${encodeURIComponent('/_#/l/chat/19:abc@thread.v2/conversations')}`,
  'https://teams.microsoft.com/dl/launcher/launcher.html?type=meetup-join',
  'https://teams.microsoft.com/meet/abc?p=1',
  `https://teams.live.com/l/meetup-join/${THREAD_ENC}/0`,
  `https://teams.microsoft.com.evil.example/l/meetup-join/${THREAD_ENC}/0`,
];

describe('parseMeetingUrl', () => {
  it('names Zoom in its refusal', () => {
    expect(() => parseMeetingUrl('https://example.com/j/1')).to.throw(/Zoom \(https:\/\/zoom\.us\/j\/123456789\)/);
  });

  for (const [url, platform, nativeId] of ACCEPTED) {
    it(`accepts ${url.slice(0, 110)}`, () => {
      const parsed = parseMeetingUrl(url);
      expect(parsed.platform).to.equal(platform);
      expect(parsed.nativeId).to.equal(nativeId);
      expect(parsed.identityKey).to.equal(`${platform}:${nativeId}`);
      // The canonical link parses back to the same meeting.
      expect(parseMeetingUrl(parsed.joinUrl).identityKey).to.equal(parsed.identityKey);
    });
  }

  for (const url of REJECTED) {
    it(`refuses ${JSON.stringify(url.slice(0, 110))}`, () => {
      let error: unknown;
      try {
        parseMeetingUrl(url);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(ServiceError);
      expect((error as ServiceError).status).to.equal(400);
      expect((error as ServiceError).message).to.match(
        /^url must be a Google Meet .* or Microsoft Teams meeting link$/,
      );
    });
  }

  it('gives every spelling of one Teams meeting the same identity', () => {
    const keys = new Set(
      ACCEPTED.filter(([, , id]) => id === `${THREAD}/0`).map(([u]) => parseMeetingUrl(u).identityKey),
    );
    expect([...keys]).to.deep.equal([`teams:${THREAD}/0`]);
  });

  it('keeps the Teams context and passcode in the link the bot opens', () => {
    expect(parseMeetingUrl(ACCEPTED[6][0]).joinUrl).to.contain('context=');
    expect(parseMeetingUrl('https://teams.live.com/meet/9876543210987?p=XyZ123abc').joinUrl).to.equal(
      'https://teams.live.com/meet/9876543210987?p=XyZ123abc',
    );
  });

  it('gives every form of one Zoom meeting the same identity, and opens the web client with the pwd given', () => {
    const keys = new Set(
      ACCEPTED.filter(([, , id]) => id === '85612345678').map(([u]) => parseMeetingUrl(u).identityKey),
    );
    expect([...keys]).to.deep.equal(['zoom:85612345678']);
    expect(parseMeetingUrl('https://us05web.zoom.us/j/85612345678?pwd=aBc.1&uname=x').joinUrl).to.equal(
      'https://app.zoom.us/wc/join/85612345678?pwd=aBc.1',
    );
    expect(parseMeetingUrl('https://zoom.us/j/856 1234 5678').joinUrl).to.equal(
      'https://app.zoom.us/wc/join/85612345678',
    );
    expect(parseMeetingUrl('https://app.zoom.us/wc/85612345678/join').joinUrl).to.equal(
      'https://app.zoom.us/wc/join/85612345678',
    );
  });

  it('opens a Zoom personal link through its launch page, which alone knows the id', () => {
    const parsed = parseMeetingUrl('https://acme.zoom.us/my/Ada.Lovelace?pwd=Zz9');
    expect(parsed.identityKey).to.equal('zoom:ada.lovelace');
    expect(parsed.joinUrl).to.equal('https://zoom.us/my/ada.lovelace?pwd=Zz9');
  });
});
