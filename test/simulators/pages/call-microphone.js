/*
 * The simulated call hears the bot's microphone, as a real call hears a participant's: the
 * client asks getUserMedia for audio when its microphone button is turned on (the bot's page
 * answers with its own track, speech/page-microphone.ts), and while it is on, the track's sound
 * goes to the "media server": here the simulator, as 16 kHz PCM in chunks of about 250 ms
 * (`mic-audio`), so that a test can recognize what the bot said. Every turn of the button is
 * reported (`mic`, on or off, when), so a test knows whether the microphone was on. While the
 * button is off nothing is sent, as a muted participant is not heard.
 *
 * Inlined after common.js (see html.ts): L.callMicrophone(local) gives { button(el, words) },
 * which makes `el` the call's microphone toggle, its names (aria-label and text) from `words`:
 * { on: [label, text], off: [label, text] } (a null label: the element has no aria-label).
 *
 * Drawn micEcho 'loopback' (Meet, Teams), the page also sends the microphone's track over a WebRTC pair
 * of its own and plays what arrives, as a client whose media path hands a participant their own
 * track back: a bot that took every remote track for a participant's would hear itself.
 */
window.__SIMLIB__.callMicrophone = (function (L) {
  'use strict';
  var RATE = 16000;
  var CHUNK_SAMPLES = 4000;

  function base64(int16) {
    var bytes = new Uint8Array(int16.buffer, int16.byteOffset, int16.byteLength);
    var binary = '';
    for (var i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }

  /* The track out over one peer connection and back in over another, played in an <audio> element. */
  function loopback(track) {
    var out = new RTCPeerConnection();
    var back = new RTCPeerConnection();
    out.onicecandidate = function (e) {
      if (e.candidate) back.addIceCandidate(e.candidate).catch(function () {});
    };
    back.onicecandidate = function (e) {
      if (e.candidate) out.addIceCandidate(e.candidate).catch(function () {});
    };
    var el = document.createElement('audio');
    el.autoplay = true;
    back.addEventListener('track', function (e) {
      el.srcObject = e.streams[0] || new MediaStream([e.track]);
      document.body.appendChild(el);
    });
    out.addTrack(track, new MediaStream([track]));
    out
      .createOffer()
      .then(function (offer) {
        return out.setLocalDescription(offer);
      })
      .then(function () {
        return back.setRemoteDescription(out.localDescription);
      })
      .then(function () {
        return back.createAnswer();
      })
      .then(function (answer) {
        return back.setLocalDescription(answer);
      })
      .then(function () {
        return out.setRemoteDescription(back.localDescription);
      })
      .catch(function () {});
    return function close() {
      out.close();
      back.close();
      el.remove();
    };
  }

  return function callMicrophone(local) {
    var on = false;
    var capture = null;
    var pending = [];
    var pendingAt = 0;

    function flush() {
      if (!pending.length) return;
      var total = pending.reduce(function (n, c) {
        return n + c.length;
      }, 0);
      var pcm = new Int16Array(total);
      var offset = 0;
      pending.forEach(function (c) {
        pcm.set(c, offset);
        offset += c.length;
      });
      pending = [];
      L.post('mic-audio', { guest: local.guestId, at: pendingAt, pcm: base64(pcm) }).catch(function () {});
    }

    function start() {
      if (capture) return;
      capture = { closed: false };
      var mine = capture;
      navigator.mediaDevices
        .getUserMedia({ audio: true })
        .then(function (stream) {
          if (mine.closed)
            return stream.getTracks().forEach(function (t) {
              t.stop();
            });
          var ctx = new AudioContext();
          var source = ctx.createMediaStreamSource(stream);
          var node = ctx.createScriptProcessor(4096, 1, 1);
          var step = ctx.sampleRate / RATE;
          var carry = 0;
          node.onaudioprocess = function (e) {
            if (!on) return;
            var input = e.inputBuffer.getChannelData(0);
            var out = new Int16Array(Math.floor((input.length - carry) / step));
            for (var i = 0; i < out.length; i++) {
              var s = input[Math.floor(carry + i * step)];
              out[i] = Math.max(-32768, Math.min(32767, Math.round(s * 32767)));
            }
            carry = carry + out.length * step - input.length;
            if (carry < 0) carry = 0;
            if (!pending.length) pendingAt = Date.now() - Math.round((input.length / ctx.sampleRate) * 1000);
            pending.push(out);
            var held = pending.reduce(function (n, c) {
              return n + c.length;
            }, 0);
            if (held >= CHUNK_SAMPLES) flush();
          };
          source.connect(node);
          var SIM = window.__SIM__ || {};
          var echo = SIM.micEcho === 'loopback' ? loopback(stream.getAudioTracks()[0]) : null;
          // A script processor runs only when connected on: through a silent gain, nothing is heard here.
          var mute = ctx.createGain();
          mute.gain.value = 0;
          node.connect(mute);
          mute.connect(ctx.destination);
          mine.stop = function () {
            if (echo) echo();
            node.disconnect();
            source.disconnect();
            stream.getTracks().forEach(function (t) {
              t.stop();
            });
            ctx.close().catch(function () {});
          };
        })
        .catch(function (err) {
          L.post('mic', { guest: local.guestId, on: false, at: Date.now(), error: String(err) }).catch(function () {});
        });
    }

    function set(next) {
      if (next === on) return;
      on = next;
      if (!on) flush();
      L.post('mic', { guest: local.guestId, on: on, at: Date.now() }).catch(function () {});
      if (on) start();
    }

    return {
      button: function (el, words) {
        function draw() {
          var w = on ? words.on : words.off;
          if (w[0]) el.setAttribute('aria-label', w[0]);
          else el.removeAttribute('aria-label');
          var text = el.querySelector('span') || el;
          if (w[1] !== null && text !== el) text.textContent = w[1];
        }
        draw();
        el.addEventListener('click', function () {
          // The client's own answer to the click takes a moment, as a real one does.
          setTimeout(function () {
            set(!on);
            draw();
          }, 80);
        });
        return el;
      },
      close: function () {
        on = false;
        if (capture) {
          capture.closed = true;
          if (capture.stop) capture.stop();
        }
        flush();
      },
    };
  };
})(window.__SIMLIB__);
