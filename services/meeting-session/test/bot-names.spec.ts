/**
 * Another bot is not company (actor/bot-names.ts, actor/participants.ts): the common notetakers'
 * names, the platforms' recorders and another instance of this bot are bots, people's names
 * (brand words among them) are not, the operator adds names with BOT_NAME_PATTERNS, and a roster
 * counts only people as the ones the bot stays for.
 */
import { expect } from 'chai';
import { BotNames } from '../src/actor/bot-names.js';
import { Roster } from '../src/actor/participants.js';
import { loadMeetingSessionConfig } from '../src/config.js';

describe('other bots in the meeting, by name', () => {
  const names = new BotNames([], 'Notetaker');

  it('knows the common notetakers, the platforms’ recorders and another instance of this bot', () => {
    const bots = [
      'Otter.ai',
      'Otter Notetaker',
      'Fireflies.ai Notetaker',
      'Fred from Fireflies.ai',
      'Read.ai meeting notes',
      'Read.ai',
      'Fathom',
      'Fathom Notetaker (Guest)',
      'tl;dv',
      'tldv Recorder',
      'Gong',
      'Gong Recorder',
      'Avoma Assistant',
      'Grain',
      'MeetGeek',
      'Notta (Unverified)',
      'Sembly AI',
      'Krisp Notetaker',
      'Zoom AI Companion',
      'Meeting Recorder',
      "Ada's Notetaker",
      'Notetaker',
      'notetaker  (External)',
    ];
    expect(
      bots.filter((name) => !names.isBot(name)),
      'taken for people',
    ).to.deep.equal([]);
  });

  it('takes people for people, brand words in their names or not', () => {
    const people = [
      'Alice Example',
      'Gong Li',
      'Grace Otterman',
      'Kim Grainger',
      'Fathoma Obi',
      'Read Allen',
      'Bob (Guest)',
    ];
    expect(
      people.filter((name) => names.isBot(name)),
      'taken for bots',
    ).to.deep.equal([]);
  });

  it('adds the operator’s patterns (BOT_NAME_PATTERNS, case-insensitive) and this service’s own name', () => {
    const config = loadMeetingSessionConfig({ BOT_NAME_PATTERNS: JSON.stringify(['^acme scribe\\b']) });
    const own = new BotNames(config.botNamePatterns, 'Minutes by Acme');
    expect(own.isBot('ACME Scribe (Guest)')).to.equal(true);
    expect(own.isBot('minutes by acme')).to.equal(true);
    expect(own.isBot('Acme Person')).to.equal(false);
    expect(loadMeetingSessionConfig({}).botNamePatterns).to.deep.equal([]);
  });

  it('refuses a BOT_NAME_PATTERNS that is no JSON array of regular expressions, naming it', () => {
    expect(() => loadMeetingSessionConfig({ BOT_NAME_PATTERNS: 'otter' })).to.throw(
      /BOT_NAME_PATTERNS: must be a JSON array/,
    );
    expect(() => loadMeetingSessionConfig({ BOT_NAME_PATTERNS: '["(unclosed"]' })).to.throw(
      /BOT_NAME_PATTERNS: "\(unclosed" is not a regular expression/,
    );
  });

  it('a roster of bots alone has no people in it: the bot is alone', () => {
    const roster = new Roster((name) => names.isBot(name));
    roster.update(['Alice Example', 'Otter.ai', 'Fireflies.ai Notetaker']);
    expect([roster.count, roster.people, roster.bots]).to.deep.equal([3, 1, ['Otter.ai', 'Fireflies.ai Notetaker']]);
    roster.update(['Otter.ai', 'Fireflies.ai Notetaker']);
    expect(roster.people).to.equal(0);
  });
});
