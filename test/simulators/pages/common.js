/* Helpers shared by the simulated clients; inlined ahead of each client (see html.ts). */
window.__SIMLIB__ = (function () {
  'use strict';
  function h(tag, attrs, kids) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === 'class') el.className = value;
      else if (key.slice(0, 2) === 'on' && typeof value === 'function') el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? '' : String(value));
    });
    [].concat(kids === undefined ? [] : kids).forEach(function (kid) {
      if (kid === null || kid === undefined) return;
      el.appendChild(typeof kid === 'string' ? document.createTextNode(kid) : kid);
    });
    return el;
  }
  /*
   * Wraps `el` in the wrapper elements this page load drew for `level` (0 to 3, see markup.ts) and
   * returns the outermost: what a parent appends and later removes.
   */
  function wrap(level, el) {
    var markup = (window.__SIM__ && window.__SIM__.markup) || { wrappers: {}, wrapperClass: {} };
    for (var i = 0; i < (markup.wrappers[level] || 0); i++) el = h('div', { class: markup.wrapperClass[level] }, [el]);
    return el;
  }
  function post(path, body) {
    return fetch('/_sim/api/' + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (r) { return r.json(); });
  }
  function avatar(name) {
    var letter = (name || '?').trim().charAt(0).toUpperCase();
    var svg = '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><circle cx="16" cy="16" r="16" fill="#5b8def"/>' +
      '<text x="16" y="21" font-size="14" text-anchor="middle" fill="#fff">' + letter + '</text></svg>';
    return 'data:image/svg+xml,' + encodeURIComponent(svg);
  }
  /** Live media like the real apps ask for; the bot's fake devices answer without a prompt. */
  function media(state) {
    return {
      start: function (video) {
        if (!navigator.mediaDevices) return;
        navigator.mediaDevices.getUserMedia({ audio: true, video: true }).then(function (stream) {
          state.stream = stream;
          if (video) video.srcObject = stream;
          this.apply();
        }.bind(this)).catch(function () { state.mediaDenied = true; });
      },
      apply: function () {
        if (!state.stream) return;
        state.stream.getAudioTracks().forEach(function (t) { t.enabled = state.micOn; });
        state.stream.getVideoTracks().forEach(function (t) { if (!state.camOn) t.stop(); });
      },
      stop: function () {
        if (state.stream) state.stream.getTracks().forEach(function (t) { t.stop(); });
        state.stream = null;
      },
    };
  }
  function connect(guestId, onView) {
    var source = new EventSource('/_sim/api/events?guest=' + encodeURIComponent(guestId));
    source.onmessage = function (event) { onView(JSON.parse(event.data)); };
    return source;
  }
  /*
   * The view handler of a client: a screen is drawn once, when the view asks for another one (the
   * way a real client swaps whole screens); an in-call view then repaints tiles and captions and
   * plays the speech it carries. `audio` says how the platform receives the call's sound (see
   * callAudio); the call's audio lives exactly as long as the in-call screen.
   */
  function screens(local, media, draw, audio) {
    return function render(view) {
      local.lastView = view;
      if (view.screen !== local.screen) {
        if (local.audio) { local.audio.close(); local.audio = null; }
        local.screen = view.screen;
        draw.reset();
        if (view.screen === 'lobby') draw.lobby();
        if (view.screen === 'in_call') {
          draw.call();
          if (audio && window.RTCPeerConnection && window.AudioContext) {
            try {
              local.audio = callAudio(local, audio);
            } catch (err) {
              // The call goes on without sound, as a real client's would; the truth says why.
              post('audio-event', { guest: local.guestId, event: 'failed', at: Date.now(), detail: String(err) }).catch(function () {});
            }
          }
        }
        if (view.screen === 'terminal') {
          media.stop();
          local.source.close();
          draw.end(view.terminal);
        }
      }
      if (view.screen === 'in_call') {
        draw.paint(view);
        if (local.audio) local.audio.update(view.speech || []);
      }
    };
  }

  /*
   * The call's sound, delivered the way the real apps receive it: over WebRTC, into <audio>
   * elements. Both ends are in this page: a sending RTCPeerConnection stands for the platform's
   * media server, a receiving one is the app's own. Each utterance the view carries is fetched
   * (/_sim/audio/<id>.wav), decoded, and played from its scheduled time through WebAudio into a
   * sending track (AudioBufferSourceNode -> gain -> MediaStreamAudioDestinationNode); between
   * utterances the tracks carry silence. The receiving side renders every remote stream in an
   * <audio> element (srcObject, autoplay), as Meet and Teams do.
   *
   * config.slots: receive tracks; Meet has three, one per recent speaker (a speaker without one
   * takes the least recently used), Teams one, mixing everybody. How tracks come and change is this
   * page load's draw (SIM.audioTracks, SIM.audioChange, SIM.audioElements; AudioVariation in
   * types.ts). config.host(): the call screen's element, for audio elements placed in it. What
   * happens is reported to the simulator (played, audio-event) for the ground truth.
   */
  /* A page this late for an utterance (a starved machine) skips it rather than play it stale. */
  var MAX_LATE_MS = 10000;
  function callAudio(local, config) {
    var SIM = window.__SIM__ || {};
    var draw = { tracks: SIM.audioTracks || 'atJoin', change: SIM.audioChange || 'none', elements: SIM.audioElements || 'body' };
    // Default (interactive) latency: a context with large buffers renders its sound that much
    // ahead of the wall clock, before the time the page schedules and reports.
    var ctx = new AudioContext();
    var send = new RTCPeerConnection();
    var recv = new RTCPeerConnection();
    var lanes = [];
    var slots = [];
    var played = {};
    var playing = new Set();
    var elements = [];
    var hiddenHost = null;
    var changed = false;
    var closed = false;
    var chain = Promise.resolve();

    function report(event, detail) {
      if (closed) return;
      post('audio-event', { guest: local.guestId, event: event, at: Date.now(), detail: detail === undefined ? undefined : String(detail) }).catch(function () {});
    }

    // Without a user gesture (or the autoplay flag) the context starts suspended: it resumes on the next one.
    function resume() {
      if (ctx.state === 'running' || closed) return;
      ctx.resume().then(function () { if (ctx.state === 'running') report('audio_resumed'); }).catch(function () {});
    }
    if (ctx.state !== 'running') {
      report('audio_blocked', 'AudioContext ' + ctx.state);
      resume();
      ['pointerdown', 'keydown'].forEach(function (type) { document.addEventListener(type, resume, true); });
    }

    /*
     * ICE between the two ends of this page. Without media permission Chromium hides host
     * addresses behind mDNS names (<uuid>.local) that nothing here resolves; both ends are this
     * machine, so such a candidate is handed over as the loopback address. Candidates that arrive
     * before their description are held until it is set.
     */
    function loopback(c) {
      var line = c.candidate.replace(/ [0-9a-f-]+\.local /i, ' 127.0.0.1 ');
      return { candidate: line, sdpMid: c.sdpMid, sdpMLineIndex: c.sdpMLineIndex, usernameFragment: c.usernameFragment };
    }
    function trickle(from, to) {
      var held = [];
      from.addEventListener('icecandidate', function (e) {
        if (!e.candidate || !e.candidate.candidate) return;
        if (to.remoteDescription) to.addIceCandidate(loopback(e.candidate)).catch(function () {});
        else held.push(loopback(e.candidate));
      });
      return function flush() {
        held.splice(0).forEach(function (c) { to.addIceCandidate(c).catch(function () {}); });
      };
    }
    var flushToRecv = trickle(send, recv);
    var flushToSend = trickle(recv, send);
    recv.addEventListener('iceconnectionstatechange', function () {
      if (recv.iceConnectionState === 'connected') report('ice_connected');
      if (recv.iceConnectionState === 'failed') report('failed', 'ICE failed');
    });

    /* One offer/answer at a time, the sending end offering (as a media server renegotiating). */
    function negotiate() {
      chain = chain.then(function () {
        if (closed) return;
        return send.createOffer()
          .then(function (offer) { return send.setLocalDescription(offer); })
          .then(function () { return recv.setRemoteDescription(send.localDescription); })
          .then(function () { flushToRecv(); return recv.createAnswer(); })
          .then(function (answer) { return recv.setLocalDescription(answer); })
          .then(function () { return send.setRemoteDescription(recv.localDescription); })
          .then(function () { flushToSend(); });
      }).catch(function (err) { report('failed', 'negotiation: ' + err); });
      return chain;
    }

    /* A sending track: utterances play into `input`, which feeds whichever destination is current. */
    function newTrack() {
      var dest = ctx.createMediaStreamDestination();
      return { dest: dest, track: dest.stream.getAudioTracks()[0], stream: dest.stream };
    }
    function addLane(index) {
      var input = ctx.createGain();
      // A source of zeros that never stops: the track carries real silence between utterances
      // instead of a graph gone idle, whose last partial buffer would only leave with the next sound.
      var silence = ctx.createConstantSource();
      silence.offset.value = 0;
      silence.connect(input);
      silence.start();
      var out = newTrack();
      input.connect(out.dest);
      var lane = { index: index, input: input, out: out, sender: send.addTrack(out.track, out.stream) };
      lanes[index] = lane;
      return lane;
    }
    function transceiverOf(sender) {
      var found = send.getTransceivers().filter(function (t) { return t.sender === sender; })[0];
      return found ? found.mid : null;
    }

    /*
     * The context time whose samples are rendered (and so sent) at epoch ms `at`. currentTime lags
     * on a busy machine; an output timestamp pairs a context time with the moment it is heard, a
     * render ahead of it by outputLatency, however stale the pair.
     */
    function contextTimeAt(at) {
      var stamp = ctx.getOutputTimestamp ? ctx.getOutputTimestamp() : null;
      if (!stamp || !stamp.performanceTime) return ctx.currentTime + (at - Date.now()) / 1000;
      var heardAt = at - performance.timeOrigin + (ctx.outputLatency || 0) * 1000;
      return Math.max(ctx.currentTime, stamp.contextTime + (heardAt - stamp.performanceTime) / 1000);
    }

    /* The receive slot for a speaker: their own, a free one, else the least recently used. */
    function slotFor(speaker) {
      var at = performance.now();
      var i = slots.findIndex(function (s) { return s.speaker === speaker; });
      if (i < 0 && slots.length < config.slots) { i = slots.length; slots.push({ speaker: speaker, used: at }); }
      if (i < 0) {
        i = 0;
        slots.forEach(function (s, j) { if (s.used < slots[i].used) i = j; });
        slots[i].speaker = speaker;
      }
      slots[i].used = at;
      return i;
    }
    /* The lane of a slot; drawn 'late', it is added (and negotiated) only now. */
    function laneFor(slot) {
      if (lanes[slot]) return Promise.resolve(lanes[slot]);
      var lane = addLane(slot);
      report('tracks_added', '1 track (slot ' + slot + ')');
      return negotiate().then(function () { return lane; });
    }

    /* Every remote stream in an <audio> element, where this page load puts them. */
    function host() {
      if (draw.elements === 'call' && config.host && config.host()) return config.host();
      if (draw.elements === 'hidden') {
        if (!hiddenHost) {
          hiddenHost = h('div', { style: 'display:none' });
          document.body.insertBefore(hiddenHost, document.body.firstChild);
        }
        return hiddenHost;
      }
      return document.body;
    }
    function render(stream) {
      var el = document.createElement('audio');
      el.autoplay = true;
      el.srcObject = stream;
      var parent = host();
      parent.appendChild(el);
      var playback = el.play();
      if (playback) playback.catch(function () {});
      return { el: el, stream: stream, parent: parent };
    }
    recv.addEventListener('track', function (e) {
      var stream = e.streams[0] || new MediaStream([e.track]);
      if (elements.some(function (x) { return x.stream === stream; })) return;
      elements.push(render(stream));
    });

    if (draw.tracks === 'atJoin') {
      for (var i = 0; i < config.slots; i++) addLane(i);
      report('tracks_added', config.slots + (config.slots === 1 ? ' track' : ' tracks') + ' at join');
      negotiate();
    }

    /* Once, just after the first utterance this page played: the change this page load drew. */
    function change() {
      if (closed || draw.change === 'none') return;
      var current = lanes.filter(Boolean);
      if (draw.change === 'replaceTrack') {
        current.forEach(function (lane) {
          var old = lane.out;
          lane.out = newTrack();
          lane.input.disconnect();
          lane.input.connect(lane.out.dest);
          lane.sender.replaceTrack(lane.out.track).then(function () { old.track.stop(); });
        });
        report('track_replaced', current.length + ' sending track(s)');
      }
      if (draw.change === 'renegotiate') {
        var moved = current.map(function (lane) {
          var out = newTrack();
          return { lane: lane, out: out, sender: send.addTrack(out.track, out.stream) };
        });
        negotiate().then(function () {
          // The sound moves to the new tracks; the old ones stay, silent.
          moved.forEach(function (m) {
            m.lane.input.disconnect();
            m.lane.input.connect(m.out.dest);
            m.lane.out = m.out;
            m.lane.sender = m.sender;
          });
          report('renegotiated', moved.length + ' new transceiver(s)');
        });
      }
      if (draw.change === 'recreateElement') {
        elements = elements.map(function (x) {
          x.el.srcObject = null;
          x.el.remove();
          return render(x.stream);
        });
        report('element_recreated', elements.length + ' element(s)');
      }
    }

    function play(u) {
      var slot = slotFor(u.speaker);
      var decoded = fetch(u.url)
        .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.arrayBuffer(); })
        .then(function (bytes) { return ctx.decodeAudioData(bytes); });
      Promise.all([decoded, laneFor(slot)]).then(function (both) {
        var buffer = both[0];
        var lane = both[1];
        if (closed) return;
        // On time: start at the scheduled moment. Late (a busy page): start now, all of it, as a
        // network delays speech rather than dropping it; what is more than MAX_LATE_MS late is
        // missed, never played stale.
        var wait = u.startAt - Date.now();
        if (-wait > MAX_LATE_MS) return report('missed', u.id + ' (' + -wait + ' ms late)');
        var source = ctx.createBufferSource();
        source.buffer = buffer;
        source.connect(lane.input);
        source.start(wait > 0 ? contextTimeAt(u.startAt) : 0);
        playing.add(source);
        source.addEventListener('ended', function () {
          playing.delete(source);
          source.disconnect();
          if (!changed && playing.size === 0) { changed = true; setTimeout(change, 100); }
        });
        post('played', { guest: local.guestId, id: u.id, startedAt: Date.now() + Math.max(0, wait), lateMs: Math.max(0, -wait),
          slot: lane.index, mid: transceiverOf(lane.sender) }).catch(function () {});
      }).catch(function (err) { report('failed', u.id + ': ' + err); });
    }

    return {
      update: function (speech) {
        speech.forEach(function (u) {
          if (played[u.id]) return;
          played[u.id] = true;
          play(u);
        });
      },
      close: function () {
        closed = true;
        playing.forEach(function (source) { try { source.stop(); } catch (e) { /* not started */ } });
        elements.forEach(function (x) { x.el.srcObject = null; x.el.remove(); });
        if (hiddenHost) hiddenHost.remove();
        ['pointerdown', 'keydown'].forEach(function (type) { document.removeEventListener(type, resume, true); });
        send.close();
        recv.close();
        ctx.close().catch(function () {});
      },
    };
  }
  /*
   * Who is speaking now, as the platforms' speaking indicators show it: each utterance of the view
   * lights its speaker from its sound's start until SPEAKING_TAIL_MS after its end (the indicators
   * trail the voice a little); overlapping utterances light both speakers. Timed from the
   * utterance's own window, as the platform's server tells every client who speaks, not from when
   * this page happens to play the sound. onChange(names) is called whenever the set changes.
   */
  var SPEAKING_TAIL_MS = 300;
  function speakingTimeline(onChange) {
    var seen = {};
    var timers = [];
    var lit = {};
    function names() { return Object.keys(lit).filter(function (name) { return lit[name] > 0; }); }
    function light(speaker, by) {
      var before = names().join('\n');
      lit[speaker] = (lit[speaker] || 0) + by;
      if (names().join('\n') !== before) onChange(names());
    }
    function at(time, fn) { timers.push(setTimeout(fn, Math.max(0, time - Date.now()))); }
    return {
      names: names,
      update: function (speech) {
        speech.forEach(function (u) {
          if (seen[u.id]) return;
          seen[u.id] = true;
          at(u.startAt, function () { light(u.speaker, 1); });
          at(u.startAt + u.durationMs + SPEAKING_TAIL_MS, function () { light(u.speaker, -1); });
        });
      },
      close: function () { timers.forEach(clearTimeout); timers = []; lit = {}; },
    };
  }

  /* A notice over the call for a few seconds ("The host turned off captions"), as both apps show. */
  function toast(className, text) {
    var el = h('div', { role: 'status', 'aria-live': 'polite', class: className }, text);
    document.body.appendChild(el);
    setTimeout(function () { el.remove(); }, 4000);
  }

  /*
   * A screen no driver knows (MeetingOptions.interstitial), worded as the page load's seed drew it
   * (SIM.interstitial, from INTERSTITIALS in html.ts): a heading, a line, a progress bar, no field
   * and no button. It asks the simulator every 300 ms whether it is still up, and hands over to
   * then() (the pre-join) once it is not.
   */
  function interstitial(root, className, meetingId, then) {
    var words = window.__SIM__.interstitial;
    root.replaceChildren(h('div', { class: className }, [
      wrap('control', h('h1', {}, words.heading)),
      h('p', {}, words.line),
      h('div', { role: 'progressbar', 'aria-busy': 'true' }),
    ]));
    (function ask() {
      fetch('/_sim/api/interstitial?id=' + encodeURIComponent(meetingId))
        .then(function (r) { return r.json(); })
        .then(function (answer) { if (answer.shown) setTimeout(ask, 300); else then(); })
        .catch(function () { setTimeout(ask, 300); });
    })();
  }

  return { h: h, wrap: wrap, post: post, avatar: avatar, media: media, connect: connect, screens: screens,
    speakingTimeline: speakingTimeline, toast: toast, interstitial: interstitial };
})();
