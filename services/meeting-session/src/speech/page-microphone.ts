/**
 * The bot's own microphone, in the page: an init script (every frame's new document, before the
 * platform's scripts) that answers `getUserMedia`'s audio with a track of a WebAudio graph of
 * ours instead of a device. Without it Chromium's fake device (--use-fake-device-for-media-stream,
 * drivers/browser.ts) would put its beep in the call the moment the microphone is on.
 *
 * The graph: a constant source of zeros -> gain -> MediaStreamAudioDestinationNode, on no output
 * device. The track carries true silence after a speech (a graph gone idle would hold its last
 * buffer back), then rests until the next (restSoon), and the speech when the driver plays one: the file's bytes are sent by puppeteer as base64,
 * decoded in the page (decodeAudioData: WAV, Ogg, MP3) and played into the gain. Video keeps the
 * browser's own device (the bot joins with its camera off).
 *
 * The ids of every track handed out are kept in `window.__ntMicTracks`, so the audio capture
 * (recording/page-capture.ts) never takes the bot's own voice for a participant's, should a page
 * route it back.
 *
 * `window.__ntMic`: play(base64) -> {durationMs} once sound starts; ended() -> 'finished' |
 * 'interrupted' when that speech is over; stop() cuts it; state() for tests.
 */
export const MICROPHONE_SCRIPT = String.raw`(function () {
  'use strict';
  if (window.__ntMic || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return;
  var original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  var ids = new Set();
  Object.defineProperty(window, '__ntMicTracks', { value: ids, enumerable: false });
  var graph = null;
  var current = null;
  var rest = null;
  // Between speeches the graph rests: a running context renders every 10 ms all call long, for
  // a microphone that speaks now and then. It rests once the zeros after a speech have left
  // (REST_AFTER_MS), and wakes before the next one; a resting track carries no samples, as a
  // muted microphone's sends none.
  var REST_AFTER_MS = 1000;
  function restSoon() {
    clearTimeout(rest);
    rest = setTimeout(function () {
      if (!current && graph && graph.ctx.state === 'running') graph.ctx.suspend().catch(function () {});
    }, REST_AFTER_MS);
  }
  function ensure() {
    if (graph) return graph;
    // No output device: the graph feeds only the track, never one more stream through
    // Chromium's audio service mixed to silence (--mute-audio).
    var ctx = new AudioContext({ sinkId: { type: 'none' } });
    var input = ctx.createGain();
    var zeros = ctx.createConstantSource();
    zeros.offset.value = 0;
    zeros.connect(input);
    zeros.start();
    var dest = ctx.createMediaStreamDestination();
    input.connect(dest);
    graph = { ctx: ctx, input: input, dest: dest };
    restSoon();
    return graph;
  }
  function ownTrack() {
    var track = ensure().dest.stream.getAudioTracks()[0].clone();
    ids.add(track.id);
    return track;
  }
  function wantsAudio(constraints) {
    return !!(constraints && constraints.audio);
  }
  navigator.mediaDevices.getUserMedia = function (constraints) {
    if (!wantsAudio(constraints)) return original(constraints);
    if (!constraints.video) return Promise.resolve(new MediaStream([ownTrack()]));
    var videoOnly = Object.assign({}, constraints, { audio: false });
    return original(videoOnly).then(function (stream) {
      stream.addTrack(ownTrack());
      return stream;
    });
  };
  function bytesOf(b64) {
    var binary = atob(b64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }
  function stop() {
    if (!current) return;
    var playing = current;
    current = null;
    try { playing.source.stop(); } catch (e) { /* not started */ }
    playing.source.disconnect();
    playing.finish('interrupted');
    restSoon();
  }
  Object.defineProperty(window, '__ntMic', {
    enumerable: false,
    value: {
      play: function (b64) {
        stop();
        var g = ensure();
        clearTimeout(rest);
        var resumed = g.ctx.state === 'running' ? Promise.resolve() : g.ctx.resume();
        return Promise.all([g.ctx.decodeAudioData(bytesOf(b64)), resumed]).then(function (both) {
          var buffer = both[0];
          var source = g.ctx.createBufferSource();
          source.buffer = buffer;
          source.connect(g.input);
          var finish;
          var ended = new Promise(function (resolve) { finish = resolve; });
          var playing = { source: source, ended: ended, finish: finish };
          source.addEventListener('ended', function () {
            if (current !== playing) return;
            current = null;
            source.disconnect();
            finish('finished');
            restSoon();
          });
          current = playing;
          source.start();
          return { durationMs: Math.round(buffer.duration * 1000) };
        });
      },
      ended: function () {
        return current ? current.ended : Promise.resolve('finished');
      },
      stop: stop,
      state: function () {
        return { tracks: ids.size, playing: !!current, context: graph ? graph.ctx.state : null };
      },
    },
  });
})();`;

/** Plays base64 audio; resolves with its duration once it sounds. */
export const playExpression = (base64: string) => `window.__ntMic.play(${JSON.stringify(base64)})`;
export const ENDED_EXPRESSION = 'window.__ntMic.ended()';
export const STOP_EXPRESSION = 'window.__ntMic && window.__ntMic.stop()';
