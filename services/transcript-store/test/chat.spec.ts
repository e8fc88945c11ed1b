/**
 * A meeting's chat in transcript-store (issue #51): stored once per index, answered in order,
 * written as the document's "Chat" section after the transcript, and searchable like it.
 */
import { expect } from 'chai';
import { embeddedStore, startHarness, type Harness } from './support/harness.js';
import { appendAll, flush, openMeeting, readDocument } from './support/meetings.js';

describe('transcript-store: the meeting chat', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(embeddedStore);
  });
  afterEach(async () => {
    await h.dispose();
  });
  after(() => embeddedStore.dispose());

  const message = (startedAt: string, seconds: number, sender: string, text: string, fromBot = false) => ({
    sender,
    text,
    timestamp: new Date(Date.parse(startedAt) + seconds * 1000).toISOString(),
    fromBot,
  });

  it('keeps each message once, in order, and writes them as the Chat section after the transcript', async () => {
    const m = await openMeeting(h);
    await appendAll(h, m, ['Shall we start?', 'The link is in the chat.']);
    const messages = [
      message(m.startedAt, 3, 'Alice', 'https://example.com/plan *draft*'),
      message(m.startedAt, 5, 'Notetaker', 'This meeting is transcribed.', true),
      message(m.startedAt, 65, 'Bob', 'thanks'),
    ];
    for (const [index, msg] of messages.entries()) {
      const { stored } = await h.request<{ stored: boolean }>('chatAppend', {
        meetingId: m.meetingId,
        index,
        message: msg,
      });
      expect(stored).to.equal(true);
    }
    // A retried append stores nothing twice.
    const again = await h.request<{ stored: boolean }>('chatAppend', {
      meetingId: m.meetingId,
      index: 1,
      message: messages[1],
    });
    expect(again.stored).to.equal(false);
    const { messages: read } = await h.request<{ messages: unknown[] }>('chat', { meetingId: m.meetingId });
    expect(read).to.deep.equal(messages);

    await flush(h, m.meetingId);
    const content = readDocument(h, m.documentPath!);
    expect(content).to.match(/The link is in the chat\.\n\n## Chat\n\n/);
    expect(content.slice(content.indexOf('## Chat'))).to.equal(
      '## Chat\n\n' +
        '- **Alice** (00:00:03): https://example.com/plan \\*draft\\*\n' +
        '- **Notetaker** (bot) (00:00:05): This meeting is transcribed.\n' +
        '- **Bob** (00:01:05): thanks\n\n',
    );

    // More segments and messages later: the section stays last, each message in it once.
    await appendAll(h, m, ['One more thing.'], 2);
    await h.request('chatAppend', {
      meetingId: m.meetingId,
      index: 3,
      message: message(m.startedAt, 70, 'Alice', 'bye'),
    });
    await flush(h, m.meetingId, 'completed');
    const final = readDocument(h, m.documentPath!);
    expect(final.match(/## Chat/g)).to.have.length(1);
    expect(final).to.match(/One more thing\.\n\n## Chat\n\n/);
    expect(final.trimEnd().endsWith('- **Alice** (00:01:10): bye')).to.equal(true);
  });

  it('finds chat messages by search, marked as chat', async () => {
    const m = await openMeeting(h, { title: 'Roadmap' });
    await appendAll(h, m, ['we discuss the roadmap']);
    await h.request('chatAppend', {
      meetingId: m.meetingId,
      index: 0,
      message: message(m.startedAt, 1, 'Carol', 'the spreadsheet is on the shared drive'),
    });
    await flush(h, m.meetingId);
    const { results } = await h.request<{ results: Array<Record<string, string>> }>('search', { q: 'spreadsheet' });
    expect(results).to.have.length(1);
    expect(results[0]).to.include({ kind: 'chat', speaker: 'Carol', meetingId: m.meetingId });
    expect(results[0].snippet).to.contain('spreadsheet');
    const transcript = await h.request<{ results: Array<Record<string, string>> }>('search', { q: 'roadmap' });
    expect(transcript.results.map((r) => r.kind)).to.deep.equal(['segment']);
  });
});
