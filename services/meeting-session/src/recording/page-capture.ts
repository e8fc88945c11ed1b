/**
 * The meeting's remote audio, captured inside the bot's page with the standard APIs and installed
 * before the platform's own scripts run (evaluateOnNewDocument), whatever the platform:
 *
 * - every remote audio track the page receives over WebRTC is found at its receiver (after each
 *   setRemoteDescription, so tracks added late or by a renegotiation are found too), however the
 *   page then plays it (an <audio> element, WebAudio, an element re-created);
 * - the tracks are mixed to one channel in an AudioContext whose graph runs whether or not anyone
 *   speaks, so silence stays silence and the file's timeline is the meeting's;
 * - the mix is encoded to Opus in the page by the browser's own MediaRecorder (WebM, 32 kbit/s,
 *   natively: no JavaScript touches the samples) and handed to the worker through `__ntAudio` a
 *   slice of about a second at a time; the worker demuxes the WebM (webm-batches.ts) and writes
 *   the packets as Ogg pages (recorder.ts).
 *
 * The bot has no microphone track of its own in the capture (only remote tracks are taken), and
 * plays nothing out loud (the browser runs with --mute-audio, which silences output, not capture).
 * Chromium renders a remote WebRTC track into WebAudio only while a media element plays it, so
 * each track also gets a muted element of its own, independent of the page's (which the platform
 * may remove or re-create).
 *
 * Where the platform names the track its one server mix comes on (`mixTrack`: Teams' mainAudio-...),
 * any other audio track beside it is a redundant copy of the same sound and is left out of both
 * parts, whichever came first.
 *
 * For transcription from audio, each track is also tapped on its own (Meet sends a track per recent
 * speaker, so two people talking at once stay apart) as 16 kHz PCM by an AudioWorklet, off the
 * page's main thread, and handed over through `__ntPcm` every 100 ms (transcription/); a track
 * that stops (muted, ended) is said to be quiet there, after its last chunk (PcmQuiet).
 *
 * The two parts start, fail and recover apart: the recording starts whatever the tap does (the tap
 * loads its module asynchronously, and start() never waits for it); a tap that could not start says
 * so once through `__ntPcm` and is tried again when a track comes (every TAP_RETRY_MS at most),
 * saying so when it runs; a MediaRecorder that fails is replaced by a new one on the same mix (a
 * stream of its own, up to MAX_RESTARTS times), the worker told through `__ntAudio`.
 */

/**
 * For transcription: one remote track's audio as 16 kHz mono 16-bit PCM, 100 ms of it, taken
 * from the track itself (not the mix), so each of Meet's speaker tracks is heard on its own.
 */
export interface PcmChunk {
  /** The track's id in the page: stable while the track lives. */
  track: string;
  /**
   * The tap's audio clock at the chunk's first sample, in samples: chunks of one track follow each
   * other without a gap exactly when the next one starts where this one ends.
   */
  frame: number;
  /** Epoch ms of the chunk's last sample: the audio clock placed on the wall clock. */
  endMs: number;
  /** Base64 of little-endian Int16 samples at PCM_SAMPLE_RATE. */
  data: string;
}

/**
 * For transcription: the track's tap was unplugged (the track muted, ended or gone: the platform
 * stopped sending on it), after its last chunk. The utterance under way on it ends here, whether
 * or not a pause was heard.
 */
export interface PcmQuiet {
  track: string;
  quiet: true;
}

/** What the page hands over through `__ntPcm` for the transcriber. */
export type PcmMessage = PcmChunk | PcmQuiet;

/**
 * Through `__ntPcm` too, in order with the chunks: the tap could not start (why; it is tried
 * again when a new track comes), or runs again after it could not.
 */
export type TapState = { tap: 'failed'; detail: string } | { tap: 'running' };

export const PCM_SAMPLE_RATE = 16_000;

/**
 * One slice of the page's MediaRecorder output, as the page hands it over: the WebM stream's next
 * bytes, cut wherever the recorder cut them.
 */
export interface RecordingSlice {
  /** The recorder's stream: a page reloaded starts another, with a header and a timeline of its own. */
  stream: string;
  /** The slice's place in its stream, from 0. */
  seq: number;
  /** Epoch ms at which the page took the slice from the recorder. */
  at: number;
  /** Base64 of the bytes. */
  data: string;
  /** Remote audio tracks captured so far in this page. */
  tracks: number;
}

/**
 * Through `__ntAudio` instead of a slice: the page's MediaRecorder failed (why). `restarted`: a
 * new recorder took over, on a stream of its own (from slice 0); else the recording stopped.
 */
export interface RecorderError {
  error: string;
  restarted: boolean;
}

/**
 * Audio the page made that is not in the recording: slices that could not be read (or never
 * came), one burst of them (webm-batches.ts).
 */
export interface SkippedAudio {
  /** Epoch ms: the end of the audio read before, the start of the audio read after. */
  fromEpochMs: number;
  toEpochMs: number;
  /** The slices in the burst (about a second each). */
  slices: number;
  /** Why, for the operator: the first reason in the burst. */
  detail: string;
}

/** One batch of the page's audio (webm-batches.ts): Opus packets concatenated, with each one's size and duration. */
export interface AudioBatch {
  /** Epoch ms at which the encoder's timeline (timestamp 0) is, as measured over the recent slices. */
  epochMs: number;
  /** Each packet's timestamp on that timeline, µs. */
  timestampsUs: number[];
  /** Base64 of the packets, back to back. */
  data: string;
  sizes: number[];
  /** Each packet's duration, µs (MediaRecorder's 60 ms packets: 60000). */
  durationsUs: number[];
  /** Remote audio tracks captured so far in this page. */
  tracks: number;
}

export const AUDIO_BINDING = '__ntAudio';
export const PCM_BINDING = '__ntPcm';

/**
 * The PCM tap's AudioWorklet (audio thread, not the page's main thread): the track's samples at
 * the tap's context rate as Int16, posted every `size` samples with the audio clock's frame of the
 * first one. A track unplugged has no input: no samples, and the frames it missed show as a gap.
 * Asked on its port as it is unplugged, it answers `quiet` after the chunks it already posted.
 */
const PCM_TAP = `class NtTap extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.size = options.processorOptions.size;
    this.fresh();
    this.port.onmessage = () => this.port.postMessage({ quiet: true });
  }
  fresh() { this.buf = new Int16Array(this.size); this.n = 0; this.frame = -1; }
  process(inputs) {
    var ch = inputs[0] && inputs[0][0];
    if (!ch) return true;
    for (var i = 0; i < ch.length; i++) {
      if (this.n === 0) this.frame = currentFrame + i;
      var s = Math.max(-1, Math.min(1, ch[i]));
      this.buf[this.n++] = s < 0 ? s * 32768 : s * 32767;
      if (this.n === this.size) {
        this.port.postMessage({ frame: this.frame, samples: this.buf.buffer }, [this.buf.buffer]);
        this.fresh();
      }
    }
    return true;
  }
}
registerProcessor('nt-tap', NtTap);`;

/**
 * The page's side, as JavaScript source (page-scripts/source.ts says why not a function): the
 * arguments are the bindings' names, the bitrate, the recorder's slice period (ms), the tap's script and its rate.
 */
const INSTALL_CAPTURE = String.raw`function (binding, pcmBinding, bitrate, batchMs, tapScript, pcmRate, mixTrack) {
  'use strict';
  if (window.__ntCapture || typeof window.RTCPeerConnection !== 'function') return;
  var tracks = new Set();
  // The platform's named mix, once a track of that name is here: the others are its redundant copies.
  var mixPattern = mixTrack ? new RegExp(mixTrack[0], mixTrack[1]) : null;
  var mixSeen = false;
  function redundant(track) { return mixSeen && !mixPattern.test(track.id); }
  var wirings = [];
  var wanted = { record: false, transcribe: false };
  var mix = null;
  var tap = null;
  var stopped = false;
  var finished = Promise.resolve();
  // The tap: under way, or why it could not start (and when), while it is tried again.
  var tapStarting = false;
  var tapFailure = null;
  var TAP_RETRY_MS = 2000;
  var TAP_LOAD_MS = 10000;
  // Recorders that failed are replaced this many times at most.
  var MAX_RESTARTS = 3;

  // A track is in the capture only while media flows on it (unmuted): a receiver nobody sends on,
  // or one a renegotiation left behind, costs nothing. Each part (the mix, the tap) is wired on its
  // own: a part that starts late (a tap tried again) takes the tracks already playing, and one
  // that throws leaves the other wired.
  function attach(track) {
    var wired = null;
    function plug() {
      if (redundant(track)) return unplug();
      if (stopped || track.muted || track.readyState === 'ended' || (!mix && !tap)) return;
      if (!wired) {
        var stream = new MediaStream([track]);
        var element = new Audio();
        element.muted = true;
        element.srcObject = stream;
        element.play().catch(function () {});
        wired = { stream: stream, element: element, parts: [], mixed: false, tap: null };
      }
      if (mix && !wired.mixed) {
        try {
          var source = mix.ctx.createMediaStreamSource(wired.stream);
          source.connect(mix.dest);
          wired.parts.push(source);
          wired.mixed = true;
        } catch (e) {}
      }
      if (tap && !wired.tap) {
        try {
          var tapped = tap.wire(track.id, wired.stream);
          wired.parts.push(tapped.source, tapped.node);
          wired.tap = tapped.node;
        } catch (e) {}
      }
    }
    // Muted, ended or gone, the track may stop in the middle of a word: its tap says so, so that
    // the utterance ends now rather than with the track's next sound.
    function unplug() {
      if (!wired) return;
      if (wired.tap) wired.tap.port.postMessage('quiet');
      wired.parts.forEach(function (part) { part.disconnect(); });
      wired.element.srcObject = null;
      wired = null;
    }
    track.addEventListener('unmute', plug);
    track.addEventListener('mute', unplug);
    track.addEventListener('ended', function () {
      unplug();
      tracks.delete(track);
    });
    wirings.push(plug);
    plug();
  }
  function take(pc) {
    var found = false;
    pc.getReceivers().forEach(function (receiver) {
      var track = receiver.track;
      if (!track || track.kind !== 'audio' || tracks.has(track) || track.readyState === 'ended') return;
      // The bot's own voice (speech/page-microphone.ts) is never a participant's, should a page route it back.
      if (window.__ntMicTracks && window.__ntMicTracks.has(track.id)) return;
      tracks.add(track);
      attach(track);
      found = true;
      // The mix's first track unplugs whatever redundant copy came before it.
      if (mixPattern && !mixSeen && mixPattern.test(track.id)) {
        mixSeen = true;
        wirings.forEach(function (plug) { plug(); });
      }
    });
    // A tap that could not start is tried again when a track comes (what it is for).
    if (found) tryTap();
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

  // The driver's bindings (drivers/page-bindings.ts) answer nothing.
  function deliver(name, payload) {
    var fn = window[name];
    if (typeof fn === 'function') fn(JSON.stringify(payload));
  }
  function base64(bytes) {
    var binary = '';
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary);
  }

  // Transcription: each track on its own, resampled by the browser to pcmRate, in 100 ms chunks (a final waits
  // for the chunk that ends its pause: shorter chunks, an earlier final). Resolves to null, or why
  // not and whether trying again may help.
  async function openTap() {
    if (typeof AudioWorkletNode !== 'function') return { detail: 'this browser has no AudioWorklet', again: false };
    var ctx;
    try {
      ctx = new AudioContext({ sampleRate: pcmRate, latencyHint: 'playback', sinkId: { type: 'none' } });
    } catch (e) {
      return { detail: 'no audio context for the tap: ' + String(e), again: true };
    }
    if (!ctx.audioWorklet) {
      ctx.close().catch(function () {});
      return { detail: 'this page has no AudioWorklet (not a secure context)', again: false };
    }
    var url = URL.createObjectURL(new Blob([tapScript], { type: 'text/javascript' }));
    var timer;
    try {
      // A module that never loads must not hold the tap (it is tried again) for ever.
      await Promise.race([
        ctx.audioWorklet.addModule(url),
        new Promise(function (_, reject) {
          timer = setTimeout(function () { reject(new Error('no answer in ' + TAP_LOAD_MS + ' ms')); }, TAP_LOAD_MS);
        }),
      ]);
    } catch (e) {
      ctx.close().catch(function () {});
      return { detail: 'the audio tap could not be loaded: ' + String(e), again: true };
    } finally {
      clearTimeout(timer);
      URL.revokeObjectURL(url);
    }
    if (stopped) {
      ctx.close().catch(function () {});
      return null;
    }
    ctx.resume();
    // Where the audio clock's zero is on the wall clock: the least delayed of the recent readings
    // (a message handled late says nothing of when its samples were heard). Recent ones only, so
    // a renderer short of CPU, whose clock falls behind the wall's, is followed.
    var readings = [];
    function wallMsOf(frame) {
      readings.push(Date.now() - (frame * 1000) / pcmRate);
      if (readings.length > 50) readings.shift();
      return Math.min.apply(null, readings) + (frame * 1000) / pcmRate;
    }
    tap = {
      ctx: ctx,
      wire: function (id, stream) {
        var source = ctx.createMediaStreamSource(stream);
        var node = new AudioWorkletNode(ctx, 'nt-tap', {
          channelCount: 1,
          channelCountMode: 'explicit',
          processorOptions: { size: pcmRate / 10 },
        });
        node.port.onmessage = function (event) {
          if (stopped) return;
          if (event.data.quiet) return deliver(pcmBinding, { track: id, quiet: true });
          var samples = new Uint8Array(event.data.samples);
          var end = event.data.frame + samples.length / 2;
          deliver(pcmBinding, { track: id, frame: event.data.frame, endMs: wallMsOf(end), data: base64(samples) });
        };
        source.connect(node);
        // Connected to the (silent) destination so that the graph pulls it.
        node.connect(ctx.destination);
        return { source: source, node: node };
      },
    };
    return null;
  }

  // The tap starts on its own, never holding the recording back: at start(), and, if it could not,
  // again when a track comes (not more often than TAP_RETRY_MS). It says how it went through
  // pcmBinding, in order with its chunks: failed once (not at every try), running once it does.
  function tryTap() {
    if (stopped || tap || tapStarting || !wanted.transcribe) return;
    if (tapFailure && (!tapFailure.again || Date.now() - tapFailure.at < TAP_RETRY_MS)) return;
    tapStarting = true;
    openTap().then(function (failure) {
      tapStarting = false;
      if (stopped) return;
      if (failure) {
        if (!tapFailure) deliver(pcmBinding, { tap: 'failed', detail: failure.detail });
        tapFailure = { again: failure.again, at: Date.now() };
        return;
      }
      if (tapFailure) deliver(pcmBinding, { tap: 'running' });
      tapFailure = null;
      wirings.forEach(function (plug) { plug(); });
    });
  }

  // Recording: the tracks mixed to one channel, encoded to Opus in WebM by the browser itself.
  // Null, or why the page cannot record.
  function startMix() {
    var type = 'audio/webm;codecs=opus';
    if (typeof MediaRecorder !== 'function' || !MediaRecorder.isTypeSupported(type)) {
      return 'this browser has no MediaRecorder for ' + type;
    }
    // sinkId none: the graph renders on its own clock without an output stream in the browser's audio service.
    var ctx = new AudioContext({ sampleRate: 48000, latencyHint: 'playback', sinkId: { type: 'none' } });
    var dest = ctx.createMediaStreamDestination();
    dest.channelCount = 1;
    dest.channelCountMode = 'explicit';
    dest.channelInterpretation = 'speakers';
    // A silent source keeps the graph producing frames before the first track and between tracks:
    // the recorder encodes silence as silence, so the stream's timeline is the meeting's.
    var idle = ctx.createConstantSource();
    idle.offset.value = 0;
    idle.connect(dest);
    idle.start();
    ctx.resume();
    // Slices are read one after the other, whichever recorder made them, so they reach the worker in order.
    mix = { ctx: ctx, dest: dest, recorder: null, type: type, restarts: 0, sending: Promise.resolve() };
    var failure = record();
    if (failure) {
      ctx.close().catch(function () {});
      mix = null;
    }
    return failure;
  }

  // A recorder on the mix, its stream of its own (an id, slices from 0). One that fails is replaced
  // (up to MAX_RESTARTS times): the recording goes on, a gap where the failed one's audio was.
  function record() {
    var recorder;
    try {
      // A stream of its own over the mix's track: what is done to one recorder's stream is not the next one's.
      var input = new MediaStream(mix.dest.stream.getAudioTracks());
      recorder = new MediaRecorder(input, { mimeType: mix.type, audioBitsPerSecond: bitrate });
    } catch (e) {
      return 'MediaRecorder refused the mix: ' + String(e);
    }
    mix.recorder = recorder;
    var stream = Date.now().toString(36) + '-' + Math.random().toString(36).slice(2);
    var seq = 0;
    recorder.ondataavailable = function (event) {
      var at = Date.now();
      var blob = event.data;
      if (!blob || blob.size === 0) return;
      var n = seq++;
      mix.sending = mix.sending.then(function () {
        return new Promise(function (resolve) {
          var reader = new FileReader();
          reader.onloadend = function () {
            var url = typeof reader.result === 'string' ? reader.result : '';
            deliver(binding, { stream: stream, seq: n, at: at, data: url.slice(url.indexOf(',') + 1), tracks: tracks.size });
            resolve();
          };
          // Native base64 of the bytes, no loop over them in JavaScript.
          reader.readAsDataURL(blob);
        });
      });
    };
    recorder.onerror = function (event) {
      if (stopped || mix.recorder !== recorder) return;
      var error = String((event && event.error) || 'MediaRecorder failed');
      // A recorder that failed stops (and hands over what it holds): never two recording at once.
      if (recorder.state !== 'inactive') {
        try { recorder.stop(); } catch (e) {}
      }
      var restarted = false;
      if (mix.restarts < MAX_RESTARTS) {
        mix.restarts++;
        restarted = record() === null;
      }
      // After the slices already taken, before the new recorder's first (a second away); the failed one's
      // last slice, handed over as it stops, may follow: its stream is still read.
      mix.sending = mix.sending.then(function () {
        deliver(binding, { error: error, restarted: restarted });
      });
    };
    var ctx = mix.ctx;
    var sending = function () { return mix.sending; };
    finished = new Promise(function (resolve) {
      recorder.onstop = function () {
        sending().then(function () {
          if (stopped) ctx.close().catch(function () {});
          resolve();
        });
      };
    });
    recorder.start(batchMs);
    return null;
  }

  // start({record, transcribe}): each part on its own. Null, or why the page cannot record; the
  // tap says how it went through pcmBinding.
  function start(what) {
    if (stopped) return null;
    wanted = { record: wanted.record || what.record, transcribe: wanted.transcribe || what.transcribe };
    var failure = what.record && !mix ? startMix() : null;
    wirings.forEach(function (plug) { plug(); });
    if (what.transcribe) tryTap();
    return failure;
  }

  // stop() resolves once the last packets were handed over.
  window.__ntCapture = {
    start: start,
    stop: function () {
      if (stopped) return finished;
      stopped = true;
      if (tap) tap.ctx.close().catch(function () {});
      // The recorder hands over what it holds, then stops.
      if (mix && mix.recorder.state !== 'inactive') mix.recorder.stop();
      else if (mix) mix.ctx.close().catch(function () {});
      return finished;
    },
  };
}`;

/**
 * The script the driver installs in a captured meeting's page before any of the platform's;
 * `mixTrack`: the id (a pattern) of the track the platform sends its one mix on, where it names it.
 */
export function captureScript(options: { bitrate: number; batchMs: number; mixTrack?: RegExp }): string {
  const mix = options.mixTrack ? [options.mixTrack.source, options.mixTrack.flags] : null;
  const args = [AUDIO_BINDING, PCM_BINDING, options.bitrate, options.batchMs, PCM_TAP, PCM_SAMPLE_RATE, mix];
  return `(${INSTALL_CAPTURE})(${args.map((arg) => JSON.stringify(arg)).join(', ')});`;
}
