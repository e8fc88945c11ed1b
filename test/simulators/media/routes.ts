/**
 * The simulated platforms' media server as the simulator's HTTPS server sees it: one MediaServer
 * (server.ts: a Chromium of its own, started on first use) per simulator, the pages' APIs on their
 * own origin (video: /_sim/video/, video.ts; the call's sound: /_sim/call-audio/, audio.ts), and
 * its closing with the simulator.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MeetingRegistry } from '../registry.js';
import { AudioCalls, handleAudioApi } from './audio.js';
import { MediaServer } from './server.js';
import { handleVideoApi, VideoCalls } from './video.js';

export class MediaCalls {
  readonly server = new MediaServer();
  readonly video = new VideoCalls(this.server);
  readonly audio: AudioCalls;
  constructor(registry: MeetingRegistry) {
    this.audio = new AudioCalls(this.server, registry);
  }
}

const calls = new WeakMap<MeetingRegistry, MediaCalls>();

function callsOf(registry: MeetingRegistry): MediaCalls {
  let c = calls.get(registry);
  if (!c) calls.set(registry, (c = new MediaCalls(registry)));
  return c;
}

/** Handles a media request (true), or says the path is none (false). */
export async function handleMediaApi(
  registry: MeetingRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  if (url.pathname.startsWith('/_sim/video/')) {
    await handleVideoApi(registry, callsOf(registry).video, req, res, url);
    return true;
  }
  if (url.pathname.startsWith('/_sim/call-audio/')) {
    await handleAudioApi(registry, callsOf(registry).audio, req, res, url);
    return true;
  }
  return false;
}

/**
 * A bot asked to join a call: the media server's Chromium starts now (if it is not up), so that
 * its first seconds are not taken from the call's first words.
 */
export function warmMedia(registry: MeetingRegistry): void {
  callsOf(registry).server.warm();
}

export async function closeMedia(registry: MeetingRegistry): Promise<void> {
  const c = calls.get(registry);
  if (!c) return;
  c.audio.closeAll();
  await c.server.close();
}
