/**
 * The calendar tools over MCP, from the capability list: an agent connects a feed, reads its
 * meetings and chooses for one, under the same key rules as REST (another key's calendar is the
 * same 404, as an error result).
 */
import { expect } from 'chai';
import { connectMcp, mcpPerSuite } from '../../services/gateway/test/mcp/clients.js';
import { icsCalendar, icsMeeting } from '../support/calendar-providers/ics-feed.js';
import { eventually } from '../support/wait.js';
import { calendarStackPerSuite, meetLink } from './support.js';

describe('calendars: MCP tools', function () {
  this.timeout(60_000);
  const w = calendarStackPerSuite();
  const mcp = mcpPerSuite(() => connectMcp(w.t.baseUrl, 'modern', { apiKey: w.apiKey }));

  it('lists the six calendar tools, and connects, reads and steers a calendar through them', async () => {
    const names = (await mcp.listTools()).map((t) => t.name);
    expect(names).to.include.members([
      'connect_calendar',
      'list_calendars',
      'get_calendar',
      'disconnect_calendar',
      'list_calendar_events',
      'set_calendar_event_join',
    ]);
    const link = meetLink();
    const url = w.ics.feed(icsCalendar([icsMeeting('mcp-1', Date.now() + 3_600_000, link, ['SUMMARY:Agent sync'])]));
    const connected = await mcp.call('connect_calendar', {
      provider: 'ics',
      url,
      callbackUrl: w.rx.url,
      saveTranscript: false,
    });
    expect(connected.isError ?? false).to.equal(false);
    const { calendar } = connected.structuredContent as { calendar: { id: string; status: string } };
    expect(calendar.status).to.equal('syncing');
    expect(JSON.stringify(connected)).not.to.include(new URL(url).pathname);

    const events = await eventually(
      async () => {
        const result = await mcp.call('list_calendar_events', { calendarId: calendar.id });
        const listed = (result.structuredContent as { events: Array<{ eventId: string; title: string }> }).events;
        return listed.length === 1 && result;
      },
      'the meeting read',
      20_000,
    );
    const [event] = (events.structuredContent as { events: Array<{ eventId: string }> }).events;
    expect(events.content[0].text).to.match(/1 meeting in cal_.*"Agent sync" google_meet: bot goes \(rule\)/s);

    const chose = await mcp.call('set_calendar_event_join', {
      calendarId: calendar.id,
      eventId: event.eventId,
      join: false,
    });
    expect((chose.structuredContent as { event: { join: boolean; reason: string } }).event).to.include({
      join: false,
      reason: 'override',
    });

    const { apiKey: other } = await w.t.createToken();
    const stranger = await connectMcp(w.t.baseUrl, 'modern', { apiKey: other });
    try {
      const refused = await stranger.call('get_calendar', { calendarId: calendar.id });
      expect(refused.isError).to.equal(true);
      expect(refused.content[0].text).to.equal('Not found: no such calendar, or another key’s');
    } finally {
      await stranger.close?.();
    }
    expect((await mcp.call('disconnect_calendar', { calendarId: calendar.id })).content[0].text).to.equal(
      `Calendar ${calendar.id} is disconnected.`,
    );
  });
});
