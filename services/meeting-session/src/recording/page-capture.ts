/**
 * The meeting's remote audio, captured inside the bot's page with the standard APIs and installed
 * before the platform's own scripts run (evaluateOnNewDocument), whatever the platform:
 *
 * - every remote audio track the page receives over WebRTC is found at its receiver (after each
 *   setRemoteDescription, so tracks added late or by a renegotiation are found too), however the
 *   page then plays it (an <audio> element, WebAudio, an element re-created);
 * - the tracks are mixed to one channel in an AudioContext whose graph runs whether or not anyone
 *   speaks, so silence stays silence and the file's timeline is the meeting's;
 * - the mix is encoded to Opus in the page (WebCodecs AudioEncoder, 32 kbit/s) and handed to the
 *   worker through `__ntAudio` in batches of about a second (recording/recorder.ts writes the Ogg).
 *
 * The bot has no microphone track of its own in the capture (only remote tracks are taken), and
 * plays nothing out loud (the browser runs with --mute-audio, which silences output, not capture).
 * Chromium renders a remote WebRTC track into WebAudio only while a media element plays it, so
 * each track also gets a muted element of its own, independent of the page's (which the platform
 * may remove or re-create).
 *
 * Per-track PCM for speaker attribution (Meet sends a track per recent speaker) can be tapped the
 * same way: a MediaStreamTrackProcessor on one track instead of the mix (docs/services/meeting-session.md).
 */

/** One batch from the page: Opus packets concatenated, with each one's size and duration. */
export interface AudioBatch {
  /** Epoch ms at which the encoder's timeline (timestamp 0) is, as measured over this batch's frames. */
  epochMs: number;
  /** Each packet's timestamp on that timeline, µs. */
  timestampsUs: number[];
  /** Base64 of the packets, back to back. */
  data: string;
  sizes: number[];
  /** Each packet's duration, µs (20 ms frames: 20000). */
  durationsUs: number[];
  /** Remote audio tracks captured so far in this page. */
  tracks: number;
}

export const AUDIO_BINDING = '__ntAudio';

/**
 * The page's side, as JavaScript source (page-scripts/source.ts says why not a function): the
 * arguments are the binding's name, the bitrate and the batch period.
 */
const INSTALL_CAPTURE = String.raw`function (binding, bitrate, batchMs) {
  'use strict';
  if (window.__ntCapture || typeof window.RTCPeerConnection !== 'function') return;
  var tracks = new Set();
  var mix = null;
  var stopped = false;
  var finished = Promise.resolve();

  // A track is in the mix only while media flows on it (unmuted): a receiver nobody sends on, or
  // one a renegotiation left behind, costs nothing.
  function attach(track) {
    if (!mix) return;
    var wired = null;
    function plug() {
      if (wired || track.muted || track.readyState === 'ended') return;
      var stream = new MediaStream([track]);
      var element = new Audio();
      element.muted = true;
      element.srcObject = stream;
      element.play().catch(function () {});
      var source = mix.ctx.createMediaStreamSource(stream);
      source.connect(mix.dest);
      wired = { element: element, source: source };
    }
    function unplug() {
      if (!wired) return;
      wired.source.disconnect();
      wired.element.srcObject = null;
      wired = null;
    }
    track.addEventListener('unmute', plug);
    track.addEventListener('mute', unplug);
    track.addEventListener('ended', function () {
      unplug();
      tracks.delete(track);
    });
    plug();
  }
  function take(pc) {
    pc.getReceivers().forEach(function (receiver) {
      var track = receiver.track;
      if (!track || track.kind !== 'audio' || tracks.has(track) || track.readyState === 'ended') return;
      tracks.add(track);
      attach(track);
    });
  }

  var proto = window.RTCPeerConnection.prototype;
  var setRemote = proto.setRemoteDescription;
  // Replacing a method keeps the platform's own RTCPeerConnection (constructor, prototype) as it was.
  proto.setRemoteDescription = function () {
    var pc = this;
    var done = setRemote.apply(pc, arguments);
    Promise.resolve(done).then(function () { take(pc); }, function () {});
    return done;
  };
  var addListener = proto.addEventListener;
  // A track event can come before the then() above runs: take the tracks there too.
  proto.addEventListener = function (type) {
    var pc = this;
    if (type === 'track') addListener.call(pc, 'track', function () { take(pc); });
    return addListener.apply(pc, arguments);
  };
  var ontrack = Object.getOwnPropertyDescriptor(proto, 'ontrack');
  if (ontrack && ontrack.set) {
    Object.defineProperty(proto, 'ontrack', {
      configurable: true,
      enumerable: ontrack.enumerable,
      get: ontrack.get,
      set: function (handler) {
        var pc = this;
        ontrack.set.call(pc, handler && function (event) { take(pc); return handler.call(this, event); });
      },
    });
  }

  function send(payload) {
    var deliver = window[binding];
    if (typeof deliver === 'function') deliver(JSON.stringify(payload)).catch(function () {});
  }

  function start() {
    if (mix) return null;
    if (typeof AudioEncoder !== 'function' || typeof MediaStreamTrackProcessor !== 'function') {
      return 'this browser has no AudioEncoder or MediaStreamTrackProcessor';
    }
    // sinkId none: the graph renders on its own clock without an output stream in the browser's audio service.
    var ctx = new AudioContext({ sampleRate: 48000, latencyHint: 'playback', sinkId: { type: 'none' } });
    var dest = ctx.createMediaStreamDestination();
    dest.channelCount = 1;
    dest.channelCountMode = 'explicit';
    dest.channelInterpretation = 'speakers';
    // A silent source keeps the graph producing frames before the first track and between tracks.
    var idle = ctx.createConstantSource();
    idle.offset.value = 0;
    idle.connect(dest);
    idle.start();
    ctx.resume();
    mix = { ctx: ctx, dest: dest };
    tracks.forEach(attach);

    // Where the audio clock's zero is on the wall clock, measured again for every batch: the least
    // delayed reading of its frames. The frames' timestamps count samples, and a renderer short of
    // CPU makes fewer samples than time passes: the worker fills what the wall clock says is
    // missing with silence, so the file keeps the meeting's timeline.
    var epochMs = Infinity;
    var lastEpochMs = Infinity;
    var packets = [];
    var encoder = new AudioEncoder({
      output: function (chunk) {
        var bytes = new Uint8Array(chunk.byteLength);
        chunk.copyTo(bytes);
        packets.push({ bytes: bytes, timestamp: chunk.timestamp, duration: chunk.duration || 20000 });
      },
      error: function (e) { send({ error: String(e) }); },
    });
    encoder.configure({ codec: 'opus', sampleRate: 48000, numberOfChannels: 1, bitrate: bitrate });
    function flush() {
      if (packets.length === 0) return;
      var batch = packets;
      packets = [];
      if (epochMs !== Infinity) lastEpochMs = epochMs;
      epochMs = Infinity;
      var binary = '';
      batch.forEach(function (p) { for (var i = 0; i < p.bytes.length; i++) binary += String.fromCharCode(p.bytes[i]); });
      send({
        epochMs: lastEpochMs,
        timestampsUs: batch.map(function (p) { return p.timestamp; }),
        data: btoa(binary),
        sizes: batch.map(function (p) { return p.bytes.length; }),
        durationsUs: batch.map(function (p) { return p.duration; }),
        tracks: tracks.size,
      });
    }
    var timer = setInterval(flush, batchMs);
    var reader = new MediaStreamTrackProcessor({ track: dest.stream.getAudioTracks()[0] }).readable.getReader();
    finished = (async function () {
      while (!stopped) {
        var next = await reader.read();
        if (next.done || !next.value) break;
        epochMs = Math.min(epochMs, Date.now() - next.value.timestamp / 1000);
        if (encoder.state === 'configured') encoder.encode(next.value);
        next.value.close();
      }
      await encoder.flush().catch(function () {});
      flush();
      clearInterval(timer);
      reader.cancel().catch(function () {});
      ctx.close().catch(function () {});
    })();
    return null;
  }

  // stop() resolves once the last packets were handed over.
  window.__ntCapture = { start: start, stop: function () { stopped = true; return finished; } };
}`;

/** The script the driver installs in a recorded meeting's page before any of the platform's. */
export function captureScript(options: { bitrate: number; batchMs: number }): string {
  return `(${INSTALL_CAPTURE})(${JSON.stringify(AUDIO_BINDING)}, ${options.bitrate}, ${options.batchMs});`;
}
