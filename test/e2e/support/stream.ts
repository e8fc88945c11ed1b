/**
 * What a customer's receiver can check about a meeting's callbacks, and what the REST reads must
 * agree with: signatures over the raw bytes, headers matching the body, sequence numbers 1..N in
 * arrival order, finalized segments equal to what was said (the simulator's ground truth).
 */
import { expect } from 'chai';
import { verifySignature, type ReceivedCallback } from '../../support/callback-receiver.js';
import type { GroundTruth } from '../../simulators/index.js';
import { describeCallback, payloadOf, type StartedMeeting, type Token, type World } from './world.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export interface Segment {
  speaker: string;
  text: string;
  timestamp: string;
}

/** Every callback signed with the token's secret, consistent headers, sequence 1..N with no gap. */
export function expectSignedInSequence(callbacks: ReceivedCallback[], token: Token, meetingId: string): void {
  expect(callbacks.length, 'callbacks received').to.be.greaterThan(0);
  const deliveryIds = new Set<string>();
  callbacks.forEach((c, i) => {
    const body = c.json as Record<string, unknown>;
    const where = `callback ${i + 1} (${describeCallback(c)})`;
    expect(c.method, where).to.equal('POST');
    expect(one(c.headers['content-type']), where).to.match(/^application\/json/);
    expect(
      verifySignature(token.signingSecret, c.rawBody, one(c.headers['x-service-signature'])),
      `${where} signature`,
    ).to.equal(true);
    expect(one(c.headers['x-service-signature']), where).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(c.eventType, where).to.equal(body.type);
    expect(c.meetingId, where).to.equal(meetingId);
    expect(body.meetingId, where).to.equal(meetingId);
    expect(body.timestamp, where).to.match(ISO_MS);
    expect(c.deliveryId, `${where} delivery id`).to.be.a('string').and.not.equal('');
    deliveryIds.add(c.deliveryId!);
  });
  expect(deliveryIds.size, 'a delivery id per delivery').to.equal(callbacks.length);
  expect(
    callbacks.map((c) => c.sequence),
    'sequence numbers in arrival order',
  ).to.deep.equal(callbacks.map((_, i) => i + 1));
}

/**
 * Waits for the meeting's final status callback, then checks that every callback it got is signed
 * and in sequence; returns them.
 */
export async function finishedStream(
  world: World,
  m: StartedMeeting,
  status: 'ended' | 'error',
): Promise<ReceivedCallback[]> {
  await world.waitForStatus(m.meetingId, status);
  const callbacks = world.callbacks(m.meetingId);
  expectSignedInSequence(callbacks, m.token, m.meetingId);
  return callbacks;
}

export function finalizedSegments(callbacks: ReceivedCallback[]): Segment[] {
  return callbacks.filter((c) => c.eventType === 'segment_finalized').map((c) => payloadOf(c) as unknown as Segment);
}

/**
 * segment_finalized equals the ground truth (speaker and text, in order); every caption_partial of
 * a turn is a text that turn really showed, in the order it showed them, ending with its final text.
 */
export function expectMatchesTruth(callbacks: ReceivedCallback[], truth: GroundTruth): void {
  const segments = finalizedSegments(callbacks);
  expect(
    segments.map(({ speaker, text }) => ({ speaker, text })),
    'segment_finalized vs ground truth',
  ).to.deep.equal(truth.segments.map(({ speaker, text }) => ({ speaker, text })));
  segments.forEach((s) => expect(s.timestamp).to.match(ISO_MS));

  const partials = new Map<string, Array<Record<string, unknown>>>();
  for (const c of callbacks.filter((c) => c.eventType === 'caption_partial')) {
    const payload = payloadOf(c);
    const id = String(payload.captionId);
    partials.set(id, [...(partials.get(id) ?? []), payload]);
  }
  expect(partials.size, 'one captionId per turn').to.equal(truth.segments.length);
  [...partials.values()].forEach((turnPartials, i) => {
    const turn = truth.segments[i];
    let position = -1;
    for (const partial of turnPartials) {
      expect(partial.speaker).to.equal(turn.speaker);
      expect(partial.timestamp).to.match(ISO_MS);
      const found = turn.history.indexOf(String(partial.text), position + 1);
      expect(found, `partial "${String(partial.text)}" is a text turn ${i + 1} showed, in order`).to.be.greaterThan(
        position,
      );
      position = found;
    }
    expect(turnPartials.at(-1)?.text, `turn ${i + 1} last partial`).to.equal(turn.text);
  });

  // A turn is finalized once, after every partial it had; turns are finalized in the order spoken.
  const finals = callbacks.filter((c) => c.eventType === 'segment_finalized');
  [...partials.keys()].forEach((captionId, i) => {
    const lastPartial = callbacks.findLast(
      (c) => c.eventType === 'caption_partial' && payloadOf(c).captionId === captionId,
    )!;
    expect(finals[i].sequence!, `turn ${i + 1} finalized after its last partial`).to.be.greaterThan(
      lastPartial.sequence!,
    );
  });
}

/** GET /meetings/{id}/{resource} as the token's owner; it must answer 200. */
async function getMeetingResource(world: World, meetingId: string, token: Token, resource: 'transcript' | 'document') {
  const res = await world.get(`/meetings/${meetingId}/${resource}`, token);
  expect(res.status, `GET /meetings/{id}/${resource}`).to.equal(200);
  return res;
}

/** GET /meetings/{id}/transcript: status and the segments exactly as they were sent. */
export async function expectTranscript(
  world: World,
  meetingId: string,
  token: Token,
  status: string,
  segments: Segment[],
) {
  const res = await getMeetingResource(world, meetingId, token, 'transcript');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).to.include({ meetingId, status });
  expect(body.segments).to.deep.equal(segments);
  return body;
}

/** GET /meetings/{id}/document: the markdown download, completed, holding the segments in order. */
async function expectDocument(world: World, m: StartedMeeting, segments: Segment[]) {
  const { meetingId } = m;
  const res = await getMeetingResource(world, meetingId, m.token, 'document');
  expect(res.headers.get('content-type')).to.match(/^text\/markdown/);
  const filename = String(m.started.documentPath).split('/').at(-1)!;
  expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${filename}"`);
  const markdown = await res.text();
  expect(markdown).to.match(/^---\n/);
  expect(markdown).to.include(`meetingId: "${meetingId}"`);
  expect(markdown).to.match(/^status: "?completed"?$/m);
  let from = 0;
  let named = -1;
  let previous: string | null = null;
  for (const { speaker, text } of segments) {
    const at = markdown.indexOf(text, from);
    expect(at, `"${text}" in the document after position ${from}`).to.be.greaterThan(-1);
    // A segment that goes on with the same speaker's sentence is in that paragraph, named at its start.
    const by = markdown.lastIndexOf(speaker, at);
    expect(by, `${speaker} named before "${text}"`).to.be.greaterThan(speaker === previous ? named - 1 : from - 1);
    named = by;
    previous = speaker;
    from = at + text.length;
  }
  return markdown;
}

/**
 * What was said is what was kept: the callbacks match the meeting's ground truth, and the
 * transcript (with `document`, the saved markdown too) holds exactly the finalized segments.
 */
export async function expectKeptAsSaid(
  world: World,
  m: StartedMeeting,
  callbacks: ReceivedCallback[],
  status: 'ended' | 'error',
  options: { document?: boolean } = {},
): Promise<Segment[]> {
  expectMatchesTruth(callbacks, m.sim.truth());
  const segments = finalizedSegments(callbacks);
  await expectTranscript(world, m.meetingId, m.token, status, segments);
  if (options.document) await expectDocument(world, m, segments);
  return segments;
}
