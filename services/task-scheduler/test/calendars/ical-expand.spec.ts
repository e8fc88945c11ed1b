/**
 * iCalendar feeds as the providers publish them -> the occurrences a bot may go to, through the
 * real ical.js: recurrences with their exceptions in the event's own zone, links wherever they are.
 */
import { expect } from 'chai';
import { expandCalendar, parseCalendar } from '../../src/calendars/providers/ical-expand.js';
import { icsCalendar, icsMeeting, icsUtc } from '../../../../test/support/calendar-providers/ics-feed.js';

const DAY = 86_400_000;
const MEET = 'https://meet.google.com/abc-defg-hij';
const window = (from: number) => ({ from, to: from + 8 * DAY });

// Europe/Berlin with its rules, as Google's feeds carry it.
const BERLIN = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

const expand = (text: string, from: number) => expandCalendar(parseCalendar(text), window(from));

describe('iCalendar expansion', () => {
  it('expands a weekly series in its zone across a DST change, with a moved, a cancelled and an excluded occurrence', () => {
    // Mondays 10:00 Berlin from 2026-10-12: 10-19 moved to 14:00, 10-26 (after DST ends) cancelled, 11-02 excluded.
    const text = icsCalendar(
      [
        [
          'UID:weekly-1',
          'DTSTAMP:20261001T000000Z',
          'DTSTART;TZID=Europe/Berlin:20261012T100000',
          'DTEND;TZID=Europe/Berlin:20261012T103000',
          'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6',
          'EXDATE;TZID=Europe/Berlin:20261102T100000',
          'SUMMARY:Weekly sync',
          `DESCRIPTION:Join: ${MEET}`,
        ],
        [
          'UID:weekly-1',
          'DTSTAMP:20261001T000000Z',
          'RECURRENCE-ID;TZID=Europe/Berlin:20261019T100000',
          'DTSTART;TZID=Europe/Berlin:20261019T140000',
          'DTEND;TZID=Europe/Berlin:20261019T143000',
          'SUMMARY:Weekly sync (moved)',
          `DESCRIPTION:Join: ${MEET}`,
        ],
        [
          'UID:weekly-1',
          'DTSTAMP:20261001T000000Z',
          'RECURRENCE-ID;TZID=Europe/Berlin:20261026T100000',
          'DTSTART;TZID=Europe/Berlin:20261026T100000',
          'DTEND;TZID=Europe/Berlin:20261026T103000',
          'STATUS:CANCELLED',
          'SUMMARY:Weekly sync',
          `DESCRIPTION:Join: ${MEET}`,
        ],
      ],
      { extra: BERLIN },
    );
    const all = [
      ...expand(text, Date.parse('2026-10-11T00:00:00Z')),
      ...expand(text, Date.parse('2026-10-19T00:00:00Z')),
      ...expand(text, Date.parse('2026-10-27T00:00:00Z')),
      ...expand(text, Date.parse('2026-11-04T00:00:00Z')),
      ...expand(text, Date.parse('2026-11-12T00:00:00Z')),
    ];
    const byKey = new Map(all.map((e) => [e.key, e]));
    const shown = [...byKey.values()].map((e) => [new Date(e.startAt).toISOString(), e.title, e.cancelled]);
    expect(shown).to.deep.equal([
      ['2026-10-12T08:00:00.000Z', 'Weekly sync', false],
      ['2026-10-19T12:00:00.000Z', 'Weekly sync (moved)', false],
      // Winter time from 10-25: 10:00 Berlin is 09:00 UTC.
      ['2026-10-26T09:00:00.000Z', 'Weekly sync', true],
      ['2026-11-09T09:00:00.000Z', 'Weekly sync', false],
      ['2026-11-16T09:00:00.000Z', 'Weekly sync', false],
    ]);
    // The moved occurrence keeps the key of the one it replaces: a bot scheduled for it follows it.
    expect([...byKey.keys()][1]).to.equal('weekly-1@20261019T100000');
  });

  it('reads a TZID the feed does not define as the IANA zone it names, and X-WR-TIMEZONE for floating times', () => {
    const text = icsCalendar(
      [
        [
          'UID:ny',
          'DTSTAMP:20260101T000000Z',
          'DTSTART;TZID=America/New_York:20260701T090000',
          'DTEND;TZID=America/New_York:20260701T100000',
          `LOCATION:${MEET}`,
        ],
        [
          'UID:floating',
          'DTSTAMP:20260101T000000Z',
          'DTSTART:20260701T090000',
          'DTEND:20260701T100000',
          `LOCATION:${MEET}`,
        ],
      ],
      { extra: ['X-WR-TIMEZONE:Asia/Tokyo'] },
    );
    const events = expand(text, Date.parse('2026-06-30T00:00:00Z'));
    expect(events.map((e) => [e.key, new Date(e.startAt).toISOString()])).to.deep.equal([
      ['ny', '2026-07-01T13:00:00.000Z'],
      ['floating', '2026-07-01T00:00:00.000Z'],
    ]);
  });

  it('finds the meeting link wherever the provider put it, Zoom with its passcode, and skips events without one', () => {
    const start = Date.parse('2026-03-02T10:00:00Z');
    const teams = 'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0?context=%7b%7d';
    const text = icsCalendar([
      icsMeeting('google', start, 'Room 4', [`X-GOOGLE-CONFERENCE:${MEET}`]),
      icsMeeting('outlook', start, 'Microsoft Teams Meeting', [`X-MICROSOFT-SKYPETEAMSMEETINGURL:${teams}`]),
      icsMeeting('url', start, 'Room 5', ['URL:https://us05web.zoom.us/j/81234567890?pwd=abc123']),
      icsMeeting('zoom-text', start, 'Room 6', [
        'DESCRIPTION:Join Zoom Meeting\\nhttps://zoom.us/j/81234567891\\nMeeting ID: 812 3456 7891\\nPasscode: 908172',
      ]),
      icsMeeting('lunch', start, 'The canteen'),
    ]);
    const events = expand(text, start - DAY);
    expect(events.map((e) => [e.key, e.platform, e.meetingUrl, e.passcode])).to.deep.equal([
      ['google', 'google_meet', MEET, null],
      ['outlook', 'teams', teams, null],
      ['url', 'zoom', 'https://us05web.zoom.us/j/81234567890?pwd=abc123', null],
      ['zoom-text', 'zoom', 'https://zoom.us/j/81234567891', '908172'],
    ]);
  });

  it("tells the owner's answer when the feed names the owner, and cancelled events", () => {
    const start = Date.parse('2026-03-02T10:00:00Z');
    const owner = 'ada@example.com';
    const text = icsCalendar(
      [
        icsMeeting('declined', start, MEET, [
          `ORGANIZER:mailto:bob@example.com`,
          `ATTENDEE;PARTSTAT=DECLINED:mailto:${owner}`,
        ]),
        icsMeeting('accepted', start, MEET, [`ATTENDEE;PARTSTAT=ACCEPTED:mailto:${owner}`]),
        icsMeeting('organized', start, MEET, [`ORGANIZER:mailto:${owner}`]),
        icsMeeting('cancelled', start, MEET, ['STATUS:CANCELLED']),
      ],
      { name: owner },
    );
    expect(expand(text, start - DAY).map((e) => [e.key, e.attendance, e.cancelled])).to.deep.equal([
      ['declined', 'declined', false],
      ['accepted', 'accepted', false],
      ['organized', 'organizer', false],
      ['cancelled', 'unknown', true],
    ]);
  });

  it('refuses what is not iCalendar', () => {
    expect(() => parseCalendar('<!doctype html><html></html>')).to.throw();
    expect(() => parseCalendar('BEGIN:VCALENDAR\r\nthis is not a content line\r\n')).to.throw();
    expect(icsUtc(Date.parse('2026-01-02T03:04:05Z'))).to.equal('20260102T030405Z');
  });
});
