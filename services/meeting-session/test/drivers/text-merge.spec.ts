/** Word-level comparison of caption texts, as platforms rewrite them while recognition improves. */
import { expect } from 'chai';
import { headDropOffset, normWord, relatedTexts, words, wordsAfter } from '../../src/drivers/text-merge.js';

const w = (text: string) => words(text);

describe('caption text merge', () => {
  it('compares words without case, punctuation or typographic apostrophes', () => {
    expect(normWord('There,')).to.equal('there');
    expect(normWord('They’re')).to.equal(normWord("they're"));
    expect(normWord('Größe!')).to.equal('größe');
  });

  it('finds how many words a long Meet turn dropped from its start, through a correction', () => {
    const before = w('so the plan is to ship the beta on friday');
    expect(headDropOffset(before, w('ship the beta on friday and then'))).to.equal(5);
    expect(headDropOffset(before, w('ship the better on friday'))).to.equal(5); // one word corrected
    expect(headDropOffset(before, w('so the plan is'))).to.equal(0);
    expect(headDropOffset(before, w('completely different words here'))).to.equal(0);
    expect(headDropOffset([], w('anything'))).to.equal(0);
  });

  it('reports only what is new after finalised words, even when those were revised', () => {
    expect(wordsAfter(w('we ship'), w('we ship on friday'))).to.deep.equal(w('on friday'));
    expect(wordsAfter(w('their going home'), w("They're going home now"))).to.deep.equal(w('now'));
    expect(wordsAfter([], w('all new'))).to.deep.equal(w('all new'));
    expect(wordsAfter(w('a b c'), w('x y'))).to.deep.equal([]);
  });

  it('tells revisions of one caption from unrelated texts', () => {
    expect(relatedTexts(w('the budget review'), w('The budget, reviewed'))).to.equal(true);
    expect(relatedTexts(w('alpha beta gamma delta'), w('zeta beta gamma delta'))).to.equal(true);
    expect(relatedTexts(w('good morning everyone'), w('next slide please'))).to.equal(false);
    expect(relatedTexts([], w('anything'))).to.equal(false);
  });
});
