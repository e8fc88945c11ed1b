/**
 * The dispatcher directly: who sends next. Jobs are real promises that the test settles, so each
 * case sees exactly which attempts are in flight at every step.
 */
import { expect } from 'chai';
import { Dispatcher, type DispatchJob } from '../src/delivery/dispatcher.js';

/** A job that records its start and finishes when the test says so. */
function jobs() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const make = (origin: string, name: string, fail = false): DispatchJob => ({
    origin,
    run: () =>
      new Promise<void>((resolve, reject) => {
        started.push(name);
        finishers.set(name, () => (fail ? reject(new Error(`${name} failed`)) : resolve()));
      }),
  });
  const finish = async (name: string) => {
    finishers.get(name)!();
    for (let i = 0; i < 5; i++) await Promise.resolve(); // let the dispatcher's finally run
  };
  return { started, make, finish };
}

describe('dispatcher', () => {
  it('keeps each receiver within its own limit while others go on', async () => {
    const { started, make, finish } = jobs();
    const dispatcher = new Dispatcher(2, 10, () => {});
    for (const name of ['h1', 'h2', 'h3']) dispatcher.enqueue(make('http://hung', name));
    dispatcher.enqueue(make('http://ok', 'o1'));
    dispatcher.enqueue(make('http://ok', 'o2'));
    expect(started).to.deep.equal(['h1', 'h2', 'o1', 'o2']);
    expect(dispatcher.inFlight).to.equal(4);
    await finish('o1');
    dispatcher.enqueue(make('http://ok', 'o3'));
    expect(started).to.deep.equal(['h1', 'h2', 'o1', 'o2', 'o3'], 'the hung receiver still holds its two');
    await finish('h1');
    expect(started.at(-1)).to.equal('h3');
  });

  it('shares the global limit among receivers in turn, so a busy one cannot starve a quiet one', async () => {
    const { started, make, finish } = jobs();
    const dispatcher = new Dispatcher(10, 2, () => {});
    for (let i = 1; i <= 4; i++) dispatcher.enqueue(make('http://busy', `b${i}`));
    dispatcher.enqueue(make('http://quiet', 'q1'));
    expect(started).to.deep.equal(['b1', 'b2']);
    await finish('b1');
    expect(started.at(-1)).to.equal('b3', 'the busy receiver was in line first');
    await finish('b2');
    expect(started.at(-1)).to.equal('q1', 'then the quiet one, before the busy one sends again');
    await finish('b3');
    expect(started.at(-1)).to.equal('b4');
  });

  it('reports a failing job and frees its slot; stop takes no new work and waits for what is in flight', async () => {
    const { started, make, finish } = jobs();
    const errors: unknown[] = [];
    const dispatcher = new Dispatcher(1, 1, (err) => errors.push(err));
    dispatcher.enqueue(make('http://a', 'a1', true));
    dispatcher.enqueue(make('http://a', 'a2'));
    await finish('a1');
    expect((errors[0] as Error).message).to.equal('a1 failed');
    expect(started).to.deep.equal(['a1', 'a2']);
    let stopped = false;
    const stopping = dispatcher.stop().then(() => (stopped = true));
    dispatcher.enqueue(make('http://a', 'late'));
    await Promise.resolve();
    expect(stopped).to.equal(false);
    await finish('a2');
    await stopping;
    expect(started).to.not.include('late');
  });
});
