import { expect } from 'chai';
import { SearchIndex } from '../src/search-index.js';

const meeting = (n: number, project = 'p') => ({
  meetingId: `meeting_${n}`,
  project,
  title: `Meeting ${n}`,
  date: '2024-11-21T10:00:00.000Z',
  documentPath: `deployed-md-files/docs/${project}/meetings/m${n}.md`,
});
const segments = (texts: string[]) =>
  texts.map((text, index) => ({ index, speaker: 'Alice', text, timestamp: '2024-11-21T10:00:00.000Z' }));

describe('search index', () => {
  it('adds each segment once, however often a meeting is added again', () => {
    const index = new SearchIndex();
    index.add(meeting(1), segments(['one', 'two']));
    index.add(meeting(1), segments(['one', 'two', 'three']));
    expect(index.size).to.equal(3);
    expect(index.indexedUpTo('meeting_1')).to.equal(2);
    expect(index.search('one', { limit: 10 })).to.have.length(1);
  });

  describe('very common words', () => {
    // Tiny thresholds: a word in more than 3 of these segments is "very common".
    let index: SearchIndex;
    beforeEach(() => {
      index = new SearchIndex({ commonShare: 0.3, commonMinDocs: 2 });
      index.add(meeting(1), segments(['the plan', 'the the', 'and the other', 'the rare okapi', 'and so on']));
      index.add(meeting(2, 'q'), segments(['the and', 'a rare okapi and the', 'and then', 'nothing here', 'the end']));
    });
    const snippets = (q: string, project?: string) => index.search(q, { limit: 10, project }).map((r) => r.snippet);

    it('only rank what the rarer words found: more words above fewer', () => {
      expect(snippets('okapi the and')).to.deep.equal(['a rare okapi and the', 'the rare okapi']);
    });

    it('alone, are answered newest first, holding every word first', () => {
      expect(snippets('the and')).to.deep.equal([
        'a rare okapi and the',
        'the and',
        'and the other',
        'the end',
        'and then',
        'and so on',
        'the rare okapi',
        'the the',
        'the plan',
      ]);
      expect(snippets('"the and"')[0]).to.equal('the and');
      expect(snippets('the and', 'p')).to.deep.equal([
        'and the other',
        'and so on',
        'the rare okapi',
        'the the',
        'the plan',
      ]);
      expect(index.search('the', { limit: 2 })).to.have.length(2);
    });
  });
});
