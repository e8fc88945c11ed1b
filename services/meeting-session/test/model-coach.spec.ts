/**
 * The model coach beside the rules: meetings on the scripted platform with the real services
 * around them and a real OpenAI-compatible server (test/support/fake-llm.ts) scripted per case;
 * then the model coach alone on a fake clock for a 2-hour meeting's prompt sizes.
 */
import { expect } from 'chai';
import { routes, type EventEnvelope } from '@notetaker/contracts';
import { call } from '@notetaker/bus';
import { Writable } from 'node:stream';
import { createLogger, silentLogger } from '@notetaker/observability';
import { createLlmClient } from '@notetaker/llm';
import { startFakeLlm, type ChatRequest, type FakeLlm, type FakeStep } from '../../../test/support/fake-llm.js';
import { sleep } from '../../../test/support/wait.js';
import { loadMeetingSessionConfig } from '../src/config.js';
import { Coaching } from '../src/actor/coaching.js';
import {
  ModelCoach,
  PROMPT_LIMITS,
  type CallOutcome,
  type CoachClock,
  type ModelCoachOptions,
  type ModelInsight,
} from '../src/actor/model-coach.js';
import { eventually, startHarness, TOKEN_CALLER, type Harness } from './support/harness.js';

const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();
const insight = (category: string, message: string, segments: number[], speaker: string | null = null) => ({
  category,
  message,
  speaker,
  segments,
});
const answer = (
  insights: unknown[],
  summary = 'Ada and Grace plan the release.',
  usage = { prompt: 400, completion: 60 },
): FakeStep => ({
  answer: JSON.stringify({ summary, insights }),
  usage,
});
const userPrompt = (r: ChatRequest) => String(r.messages.find((m) => m.role === 'user')?.content ?? '');
const promptChars = (r: ChatRequest) => r.messages.reduce((n, m) => n + String(m.content ?? '').length, 0);

const BUDGET = 20_000;

describe('model coach (scripted platform, real services, fake OpenAI-compatible server)', () => {
  let h: Harness;
  let fake: FakeLlm;

  before(async () => {
    fake = await startFakeLlm();
    h = await startHarness({
      ...fake.env(),
      COACH_INTERVAL_MS: '150',
      COACH_TIMEOUT_MS: '400',
      COACH_MAX_TOKENS_PER_MEETING: String(BUDGET),
      // One flush, the final one: the events of two runs of the same script are then the same.
      FLUSH_INTERVAL_MS: '600000',
    });
  });
  after(async () => {
    await h.stop();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.script([]);
  });

  async function liveMeeting(overrides: Record<string, unknown> = {}) {
    const started = await h.start(overrides);
    await h.waitForEvent(started.meetingId, (e) => e.payload.status === 'live');
    return { ...started, bot: await h.driver.meeting(started.meetingId) };
  }

  async function stop(meetingId: string) {
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
  }

  const SCRIPT: Array<[number, string, string]> = [
    [0, 'Ada', 'Welcome everyone, today we decide on the release date.'],
    [20, 'Grace', 'I think Friday works if the tests pass.'],
    [40, 'Ada', 'Who owns the release notes?'],
    [100, 'Ada', 'Let us go with Friday then, agreed.'],
    [120, 'Grace', 'The migration could break the old clients, that worries me.'],
    [140, 'Ada', 'Noted, let us move on to hiring.'],
  ];

  /**
   * One meeting's talk: participants, a caption and a segment at a time with pauses the model
   * coach (150 ms interval) gets calls in, each segment's event awaited. Returns how long each
   * segment took from the platform to its published event: the caption path.
   */
  async function talk(meetingId: string, bot: Awaited<ReturnType<typeof liveMeeting>>['bot']): Promise<number[]> {
    const base = Date.parse('2025-05-01T09:00:00.000Z');
    const waits: number[] = [];
    bot.participants(['Ada', 'Grace']);
    for (const [i, [s, speaker, text]] of SCRIPT.entries()) {
      bot.caption({ captionId: `c${i}`, speaker, text: text.split(' ')[0], timestamp: at(base, s) });
      const sent = performance.now();
      bot.segment({ speaker, text, timestamp: at(base, s) });
      await h.waitForEvent(meetingId, (e) => e.type === 'segment_finalized' && e.payload.text === text);
      waits.push(performance.now() - sent);
      await sleep(170);
    }
    bot.participants(['Ada']);
    await h.waitForEvent(meetingId, (e) => e.type === 'participant_left');
    return waits;
  }

  /** The events but the coaching, comparable across meetings (times the actor sets, the document's name). */
  const shape = (events: EventEnvelope[]) =>
    events
      .filter((e) => e.type !== 'coach_insight')
      .map((e) => {
        const { timestamp, documentPath, ...rest } = e.payload;
        const keep = e.type.startsWith('participant_') ? rest : { ...rest, ...(timestamp ? { timestamp } : {}) };
        return { type: e.type, payload: e.type === 'document_saved' ? rest : keep };
      });
  const insightsOf = (meetingId: string, source?: string) =>
    h
      .events(meetingId)
      .filter((e) => e.type === 'coach_insight' && (!source || e.payload.source === source))
      .map((e) => e.payload);

  async function transcript(meetingId: string) {
    const reply = await call(h.bus, routes.transcripts.segments, { meetingId, fromIndex: 0 });
    return reply.segments.map((s) => [s.speaker, s.text]);
  }

  /** A counter's value; `labels` as they are written first in the line (the service label follows). */
  async function metric(name: string, labels = ''): Promise<number> {
    const line = new RegExp(`^${name}\\{${labels}[^}]*\\} (\\d+)$`, 'm');
    return Number(line.exec(await h.metrics())?.[1] ?? 0);
  }

  /** The same script with coach `rules`: what a meeting must look like whatever the model does. */
  let baseline: { shape: ReturnType<typeof shape>; rules: unknown[] } | null = null;
  async function rulesBaseline() {
    if (baseline) return baseline;
    const { meetingId, bot } = await liveMeeting({ coach: 'rules' });
    await talk(meetingId, bot);
    await stop(meetingId);
    baseline = { shape: shape(h.events(meetingId)), rules: insightsOf(meetingId, 'rules') };
    expect(baseline.rules, 'the script raises a rule insight').to.not.be.empty;
    return baseline;
  }

  it('raises the insights of a scripted answer as coach_insight events, source model, with the model and its tokens', async () => {
    // Once the model has seen the decision (segment 3), it raises the same two points every time.
    fake.respond((request) =>
      userPrompt(request).includes('#3 ')
        ? answer([
            insight('decision', 'Friday was agreed as the release date; write it down with an owner.', [1, 3]),
            insight('action_item', 'Nobody took the release notes: name an owner.', [2], 'Ada'),
          ])
        : answer([]),
    );
    const { meetingId, bot } = await liveMeeting(); // no `coach`: `ai`, a model being configured
    await talk(meetingId, bot);
    const decision = await h.waitForEvent(
      meetingId,
      (e) => e.type === 'coach_insight' && e.payload.category === 'decision',
    );
    expect(decision.payload).to.deep.equal({
      category: 'decision',
      message: 'Friday was agreed as the release date; write it down with an owner.',
      segments: [1, 3],
      metrics: {},
      source: 'model',
      model: fake.model,
      tokens: { prompt: 400, completion: 60 },
    });
    const action = await h.waitForEvent(
      meetingId,
      (e) => e.type === 'coach_insight' && e.payload.category === 'action_item',
    );
    expect(action.payload).to.include({ speaker: 'Ada', source: 'model' });
    await stop(meetingId);

    // The model answered the same two points on every call: each was sent once.
    expect(fake.requests.length).to.be.at.least(2);
    expect(insightsOf(meetingId, 'model').map((p) => p.category)).to.deep.equal(['decision', 'action_item']);
    // The rules coach beside it, as with `rules`.
    expect(insightsOf(meetingId, 'rules').map((p) => p.category)).to.include('questions');

    const first = fake.requests[0];
    expect(first.model).to.equal(fake.model);
    expect(first.response_format).to.deep.include({ type: 'json_schema' });
    expect(first.response_format!.json_schema).to.include({ name: 'coach_insights', strict: true });
    expect(userPrompt(first)).to.include('#0 Ada: Welcome everyone');
    // The call after the insights carries the running summary and what was raised.
    const raisedAt = fake.requests.findIndex((r) => userPrompt(r).includes('#3 '));
    const next = fake.requests[raisedAt + 1];
    expect(next, 'a call after the one that raised them').to.not.equal(undefined);
    expect(userPrompt(next)).to.include('Summary so far: Ada and Grace plan the release.');
    expect(userPrompt(next)).to.include('[decision] Friday was agreed');
    expect(await metric('meeting_coach_insights_total', 'category="decision",source="model"')).to.be.at.least(1);
    expect(await metric('meeting_coach_model_calls_total', 'outcome="ok"')).to.be.at.least(2);
    expect(await metric('meeting_coach_model_tokens_total', 'kind="prompt"')).to.be.at.least(800);
  });

  it('drops the same point raised again in other words', async () => {
    let n = 0;
    fake.respond(() =>
      answer([
        n++ === 0
          ? insight('risk', 'The migration could break the old clients; plan a test.', [4])
          : insight('risk', 'The migration may break old clients: plan a test for it.', [4, 5]),
      ]),
    );
    const { meetingId, bot } = await liveMeeting({ coach: 'ai' });
    await talk(meetingId, bot);
    await eventually(() => fake.requests.length >= 2, 'two model calls');
    await stop(meetingId);
    expect(insightsOf(meetingId, 'model')).to.have.length(1);
  });

  const failures: Array<{ name: string; step: () => FakeStep; outcome: CallOutcome }> = [
    {
      name: 'a malformed answer',
      step: () => ({ answer: 'Sure! Here are some insights: none.' }),
      outcome: 'malformed',
    },
    {
      name: 'an answer outside the schema',
      step: () => answer([insight('gossip', 'Grace seems tired.', [1])]),
      outcome: 'malformed',
    },
    {
      name: 'a timeout',
      step: () => ({ ...answer([insight('risk', 'Too late.', [1])]), delayMs: 2_000 }),
      outcome: 'timeout',
    },
    { name: 'a 500', step: () => ({ status: 500, error: 'the model is down' }), outcome: 'error' },
  ];
  for (const { name, step, outcome } of failures) {
    it(`${name} leaves the transcript and the other events untouched`, async () => {
      const expected = await rulesBaseline();
      fake.requests.length = 0;
      const outcomes = () => metric('meeting_coach_model_calls_total', `outcome="${outcome}"`);
      const before = await outcomes();
      fake.respond(step);
      const { meetingId, bot } = await liveMeeting({ coach: 'ai' });
      const waits = await talk(meetingId, bot);
      await eventually(async () => (await outcomes()) > before, `a call counted ${outcome}`);
      await stop(meetingId);

      expect(fake.requests.length, 'the model was asked').to.be.at.least(1);
      const events = h.events(meetingId);
      expect(events.map((e) => e.sequence)).to.deep.equal(events.map((_, i) => i + 1));
      expect(shape(events)).to.deep.equal(expected.shape);
      expect(insightsOf(meetingId, 'rules')).to.deep.equal(expected.rules);
      expect(insightsOf(meetingId, 'model')).to.be.empty;
      expect(await transcript(meetingId)).to.deep.equal(SCRIPT.map(([, speaker, text]) => [speaker, text]));
      // A segment never waited for the model (a timed-out call hangs 400 ms).
      expect(Math.max(...waits)).to.be.below(150);
    });
  }

  it('an exhausted budget stops the model calls and leaves the transcript and the other events untouched', async () => {
    const expected = await rulesBaseline();
    fake.requests.length = 0;
    const before = await metric('meeting_coach_model_budget_exhausted_total');
    // The first answer spends nearly the whole budget: no second call fits.
    fake.respond(() =>
      answer([insight('decision', 'Friday it is.', [3])], 'Release on Friday.', {
        prompt: BUDGET - 500,
        completion: 100,
      }),
    );
    const { meetingId, bot } = await liveMeeting({ coach: 'ai' });
    await talk(meetingId, bot);
    await eventually(async () => (await metric('meeting_coach_model_budget_exhausted_total')) > before, 'budget spent');
    await stop(meetingId);

    expect(fake.requests).to.have.length(1);
    expect(insightsOf(meetingId, 'model').map((p) => p.message)).to.deep.equal(['Friday it is.']);
    const events = h.events(meetingId);
    expect(events.map((e) => e.sequence)).to.deep.equal(events.map((_, i) => i + 1));
    expect(shape(events)).to.deep.equal(expected.shape);
    expect(insightsOf(meetingId, 'rules')).to.deep.equal(expected.rules);
    expect(await transcript(meetingId)).to.deep.equal(SCRIPT.map(([, speaker, text]) => [speaker, text]));
  });

  it('`off` asks no model and sends no insight; `rules` asks no model', async () => {
    fake.respond(() => answer([insight('decision', 'Friday.', [3])]));
    const off = await liveMeeting({ coach: 'off' });
    await talk(off.meetingId, off.bot);
    await sleep(300); // two intervals: a model call would have been made by now
    await stop(off.meetingId);
    expect(fake.requests).to.be.empty;
    expect(insightsOf(off.meetingId)).to.be.empty;
    expect(shape(h.events(off.meetingId))).to.deep.equal((await rulesBaseline()).shape);

    fake.requests.length = 0;
    const rules = await liveMeeting({ coach: 'rules' });
    await talk(rules.meetingId, rules.bot);
    await sleep(300);
    await stop(rules.meetingId);
    expect(fake.requests).to.be.empty;
    expect(insightsOf(rules.meetingId).map((p) => p.source))
      .to.include('rules')
      .and.not.include('model');
  });

  it('refuses a coach it does not know, naming the field', async () => {
    const reply = await h
      .request<{ ok?: boolean; error?: { message: string } }>('start', {
        caller: TOKEN_CALLER,
        url: 'https://meet.google.com/abc-defg-hij',
        title: null,
        callbackUrl: null,
        project: 'api',
        saveTranscript: true,
        coach: 'gpt',
      })
      .catch((err: Error) => ({ error: { message: err.message } }));
    expect(reply.error?.message).to.match(/coach must be one of rules, ai, off/);
  });
});

describe('coach configuration', () => {
  const coaching = (env: Record<string, string>) =>
    new Coaching({
      config: loadMeetingSessionConfig(env).coach,
      logger: silentLogger(),
      metrics: { onInsight() {}, onCall() {}, onBudgetExhausted() {} },
    });

  it('defaults to the rules without a model, to ai with one (LLM_* as the task runner, COACH_MODEL on the same endpoint)', () => {
    expect(coaching({}).defaultMode).to.equal('rules');
    expect(coaching({ LLM_MODEL: 'm' }).defaultMode, 'a model without an endpoint or a key').to.equal('rules');
    expect(coaching({ LLM_MODEL: 'm', LLM_BASE_URL: 'http://127.0.0.1:1/v1' }).defaultMode).to.equal('ai');
    expect(coaching({ COACH_MODEL: 'c', LLM_API_KEY: 'k' }).defaultMode).to.equal('ai');
    expect(coaching({ LLM_MODEL: 'm', LLM_API_KEY: 'k', COACH_MAX_TOKENS_PER_MEETING: '0' }).defaultMode).to.equal(
      'rules',
    );
    const config = loadMeetingSessionConfig({ LLM_MODEL: 'big', COACH_MODEL: 'small' }).coach;
    expect(config.llm.model).to.equal('small');
    expect(loadMeetingSessionConfig({}).coach).to.include({ intervalMs: 60_000, maxTokensPerMeeting: 250_000 });
  });
});

/** A clock a test moves: timers run when it passes their time. */
function manualClock() {
  let now = Date.parse('2025-05-01T09:00:00.000Z');
  let timers: Array<{ at: number; run: () => void }> = [];
  const clock: CoachClock & { advanceTo(t: number): void; time(): number } = {
    now: () => now,
    time: () => now,
    after(ms, run) {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
    /** Runs each timer due by `t` at its own time, then stands at `t`. */
    advanceTo(t) {
      for (;;) {
        const due = timers.filter((x) => x.at <= t).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        now = due.at;
        due.run();
      }
      now = t;
    },
  };
  return clock;
}

describe('model coach prompt over a long meeting (fake clock, real HTTP)', () => {
  let fake: FakeLlm;
  before(async () => (fake = await startFakeLlm()));
  after(() => fake.close());

  /** A prompt never grows past this, whatever the meeting's length (see PROMPT_LIMITS). */
  const MAX_PROMPT_CHARS = 12_500;

  /** A model coach on the fake server (5 s to answer, no retries) that files each call's outcome in `outcomes`. */
  const coachOnFake = (
    outcomes: CallOutcome[],
    options: Pick<ModelCoachOptions, 'intervalMs' | 'maxTokens' | 'logger' | 'deliver' | 'clock'>,
  ) =>
    new ModelCoach({
      client: createLlmClient(
        { baseUrl: fake.url, apiKey: fake.apiKey, model: fake.model },
        { maxRetries: 0, timeoutMs: 5_000 },
      )!,
      model: fake.model,
      metrics: { onCall: (outcome) => outcomes.push(outcome), onBudgetExhausted() {} },
      ...options,
    });

  it('stays under a fixed size over a 2-hour meeting at 150 words a minute, the model down for half an hour of it', async () => {
    const clock = manualClock();
    const start = clock.time();
    const outcomes: CallOutcome[] = [];
    let delivered: ModelInsight[] = [];
    let call = 0;
    fake.respond((request) => {
      call++;
      const minute = (clock.time() - start) / 60_000;
      if (minute >= 30 && minute < 60) return { status: 503, error: 'overloaded' };
      // A summary longer than asked, and a new point every time: both lists are at their bounds.
      return answer(
        [
          insight(
            'follow_up',
            `Follow up on ${Array.from({ length: 6 }, (_, k) => `item${call * 6 + k}`).join(' ')}.`,
            [],
          ),
        ],
        `Summary ${call}: ${'the team discussed the roadmap and the release; '.repeat(60)}`,
        { prompt: Math.ceil(promptChars(request) / 4), completion: 80 },
      );
    });
    const coach = coachOnFake(outcomes, {
      intervalMs: 60_000,
      maxTokens: 1_000_000,
      logger: silentLogger(),
      deliver: (insights) => (delivered = [...delivered, ...insights]),
      clock,
    });
    const speakers = ['Ada', 'Grace', 'Linus', 'Margaret'];
    const words = (i: number) => Array.from({ length: 20 }, (_, w) => `word${(i * 20 + w) % 997}`).join(' ');
    // A 20-word segment every 8 s: 150 words a minute for 2 hours.
    for (let i = 0; i < 900; i++) {
      clock.advanceTo(start + i * 8_000);
      await coach.settled();
      coach.observe(i, { speaker: speakers[i % 4], text: words(i), timestamp: new Date(clock.time()).toISOString() });
    }
    clock.advanceTo(start + 2 * 60 * 60_000);
    await coach.settled();
    coach.stop();

    const sizes = fake.requests.map(promptChars);
    const okCalls = outcomes.filter((o) => o === 'ok').length;
    console.log(
      `      prompt over 2 h: ${sizes.length} calls (${okCalls} answered, ${outcomes.length - okCalls} failed), ` +
        `${Math.min(...sizes)}-${Math.max(...sizes)} characters (first ${sizes[0]}, last ${sizes.at(-1)}), ` +
        `${coach.tokensSpent} tokens in all`,
    );
    // One call a minute at most, never two at once.
    expect(sizes.length).to.be.within(115, 121);
    expect(outcomes.filter((o) => o === 'error')).to.have.length.within(29, 31);
    expect(Math.max(...sizes)).to.be.below(MAX_PROMPT_CHARS);
    // The summary is cut to its bound, and the insights listed to theirs.
    const last = userPrompt(fake.requests.at(-1)!);
    const summary = /^Summary so far: (.*)$/m.exec(last)![1];
    expect(summary.length).to.be.at.most(PROMPT_LIMITS.summary);
    expect(last.match(/^- \[follow_up\]/gm)).to.have.length(PROMPT_LIMITS.raisedListed);
    // Back after the outage (the call of minute 60), the model reads the newest words: the oldest it
    // never saw (from minute 30 on) were dropped to keep the bound.
    const back = userPrompt(fake.requests[59]);
    expect(back).to.include('#449 ').and.not.include('#240 ');
    expect(delivered.length).to.equal(okCalls);
  });

  it('drops an answer that does not parse with a log line, and asks again an interval later with the same words', async () => {
    const clock = manualClock();
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const logger = createLogger({ service: 'meeting-session', level: 'warn', destination });
    const outcomes: CallOutcome[] = [];
    fake.requests.length = 0;
    fake.script([{ answer: '{"summary": "x", "insights": [{"category": "decision"}]}' }, answer([])]);
    const coach = coachOnFake(outcomes, {
      intervalMs: 60_000,
      maxTokens: 100_000,
      logger,
      deliver: () => expect.fail('nothing to deliver'),
      clock,
    });
    const t0 = clock.time();
    coach.observe(0, { speaker: 'Ada', text: 'We ship on Friday.', timestamp: new Date(t0).toISOString() });
    clock.advanceTo(t0 + 30_000);
    expect(fake.requests, 'not before the interval').to.be.empty;
    clock.advanceTo(t0 + 60_000);
    await coach.settled();
    expect(outcomes).to.deep.equal(['malformed']);
    expect(lines[0]).to.include({ msg: 'the model coach answer was dropped: it does not parse' });
    expect(String(lines[0].problem)).to.match(/^insights\.0\.message/);
    clock.advanceTo(t0 + 120_000);
    await coach.settled();
    expect(outcomes).to.deep.equal(['malformed', 'ok']);
    expect(userPrompt(fake.requests[1])).to.include('#0 Ada: We ship on Friday.');
    // Nothing new said: no call, however long.
    clock.advanceTo(t0 + 600_000);
    await coach.settled();
    expect(fake.requests).to.have.length(2);
    coach.stop();
  });
});
