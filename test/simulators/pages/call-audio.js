/*
 * The call's sound in the simulated clients, delivered the way the real apps receive it: over
 * WebRTC, into <audio> elements. Inlined after common.js (see html.ts), it adds callAudio to the
 * clients' library; common.js's screens() starts it on entering the call and closes it on leaving.
 */
window.__SIMLIB__.callAudio = (function (L) {
  'use strict';
  var h = L.h;
  var post = L.post;

  /*
   * Two ends of a WebRTC call, both in this page: `send` stands for the platform's media server,
   * `recv` for the app's own. Without media permission Chromium hides host addresses behind mDNS
   * names (<uuid>.local) that nothing here resolves; both ends are this machine, so such a
   * candidate is handed over as the loopback address. Candidates that arrive before their
   * description are held until it is set. negotiate(): one offer/answer at a time, the sending end
   * offering (as a media server renegotiating); `rename(sdp)` names its tracks in each offer, as
   * a media server names the tracks it sends (the receiving page's track ids follow the offer's).
   */
  function peerPair(report, rename) {
    var send = new RTCPeerConnection();
    var recv = new RTCPeerConnection();
    var closed = false;
    var chain = Promise.resolve();
    function loopback(c) {
      var line = c.candidate.replace(/ [0-9a-f-]+\.local /i, ' 127.0.0.1 ');
      return {
        candidate: line,
        sdpMid: c.sdpMid,
        sdpMLineIndex: c.sdpMLineIndex,
        usernameFragment: c.usernameFragment,
      };
    }
    function trickle(from, to) {
      var held = [];
      from.addEventListener('icecandidate', function (e) {
        if (!e.candidate || !e.candidate.candidate) return;
        if (to.remoteDescription) to.addIceCandidate(loopback(e.candidate)).catch(function () {});
        else held.push(loopback(e.candidate));
      });
      return function flush() {
        held.splice(0).forEach(function (c) {
          to.addIceCandidate(c).catch(function () {});
        });
      };
    }
    var flushToRecv = trickle(send, recv);
    var flushToSend = trickle(recv, send);
    recv.addEventListener('iceconnectionstatechange', function () {
      if (recv.iceConnectionState === 'connected') report('ice_connected');
      if (recv.iceConnectionState === 'failed') report('failed', 'ICE failed');
    });
    return {
      send: send,
      recv: recv,
      negotiate: function () {
        chain = chain
          .then(function () {
            if (closed) return;
            return send
              .createOffer()
              .then(function (offer) {
                return send.setLocalDescription(offer);
              })
              .then(function () {
                return recv.setRemoteDescription({ type: 'offer', sdp: rename(send.localDescription.sdp) });
              })
              .then(function () {
                flushToRecv();
                return recv.createAnswer();
              })
              .then(function (answer) {
                return recv.setLocalDescription(answer);
              })
              .then(function () {
                return send.setRemoteDescription(recv.localDescription);
              })
              .then(function () {
                flushToSend();
              });
          })
          .catch(function (err) {
            report('failed', 'negotiation: ' + err);
          });
        return chain;
      },
      close: function () {
        closed = true;
        send.close();
        recv.close();
      },
    };
  }

  /*
   * The receiving app's <audio> elements: every remote stream of `recv` rendered in one (srcObject,
   * autoplay), as Meet and Teams do, where this page load puts them (placement: the end of <body>,
   * the call's screen, i.e. the first element of `root`, or a hidden container at the start of
   * <body>). recreate() replaces every element by a new one for the same stream.
   */
  function audioElements(recv, placement, root) {
    var elements = [];
    var hiddenHost = null;
    function host() {
      if (placement === 'call' && root && root.firstElementChild) return root.firstElementChild;
      if (placement === 'hidden') {
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
    function remove(x) {
      x.el.srcObject = null;
      x.el.remove();
    }
    recv.addEventListener('track', function (e) {
      var stream = e.streams[0] || new MediaStream([e.track]);
      if (
        elements.some(function (x) {
          return x.stream === stream;
        })
      )
        return;
      elements.push(render(stream));
    });
    return {
      recreate: function () {
        elements = elements.map(function (x) {
          remove(x);
          return render(x.stream);
        });
        return elements.length;
      },
      close: function () {
        elements.forEach(remove);
        if (hiddenHost) hiddenHost.remove();
      },
    };
  }

  /*
   * The call's sound, delivered the way the real apps receive it: over WebRTC (peerPair), into
   * <audio> elements (audioElements). Each utterance the view carries is fetched
   * (/_sim/audio/<id>.wav), decoded, and played from its scheduled time through WebAudio into a
   * sending track (AudioBufferSourceNode -> gain -> MediaStreamAudioDestinationNode); between
   * utterances the tracks carry silence.
   *
   * config.slots: receive tracks; Meet has three, one per recent speaker (a speaker without one
   * takes the least recently used), Teams and Zoom one, mixing everybody. config.mixName: the
   * name (prefix) of the tracks the media server sends (Teams' mix: mainAudio-<id>), and
   * config.redundant: each lane also sent on a second, unnamed track carrying the same sound (Teams'
   * redundant track), offered before the named one where config.copyFirst. How tracks come and
   * change is this page load's draw (SIM.audioTracks, SIM.audioChange, SIM.audioElements;
   * AudioVariation in types.ts). config.root: the client's root, whose first element is the call
   * screen, for audio elements placed in it. What happens is reported to the simulator (played,
   * audio-event) for the ground truth.
   */
  /* A page this late for an utterance (a starved machine) skips it rather than play it stale. */
  var MAX_LATE_MS = 10000;
  function callAudio(local, config) {
    var SIM = window.__SIM__ || {};
    var draw = {
      tracks: SIM.audioTracks || 'atJoin',
      change: SIM.audioChange || 'none',
      elements: SIM.audioElements || 'body',
      idle: SIM.audioIdle || 'silence',
    };
    var closed = false;
    function report(event, detail) {
      if (closed) return;
      post('audio-event', {
        guest: local.guestId,
        event: event,
        at: Date.now(),
        detail: detail === undefined ? undefined : String(detail),
      }).catch(function () {});
    }
    // Default (interactive) latency: a context with large buffers renders its sound that much
    // ahead of the wall clock, before the time the page schedules and reports.
    var ctx = new AudioContext();
    // The sending tracks named config.mixName-<id> in the offers (by the id each was first offered with).
    var named = [];
    function rename(sdp) {
      if (!config.mixName) return sdp;
      return named.reduce(function (text, id) {
        return text.split(' ' + id).join(' ' + config.mixName + '-' + id);
      }, sdp);
    }
    var peers = peerPair(report, rename);
    var received = audioElements(peers.recv, draw.elements, config.root);
    var lanes = [];
    var slots = [];
    var played = {};
    var playing = new Set();
    var changed = false;

    // Without a user gesture (or the autoplay flag) the context starts suspended: it resumes on the next one.
    function resume() {
      if (ctx.state === 'running' || closed) return;
      ctx
        .resume()
        .then(function () {
          if (ctx.state === 'running') report('audio_resumed');
        })
        .catch(function () {});
    }
    if (ctx.state !== 'running') {
      report('audio_blocked', 'AudioContext ' + ctx.state);
      resume();
      ['pointerdown', 'keydown'].forEach(function (type) {
        document.addEventListener(type, resume, true);
      });
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
      named.push(out.track.id);
      // The redundant copy offered before the mix or after it (config.copyFirst): a page takes either order.
      var copy = config.redundant ? newTrack() : null;
      if (copy && config.copyFirst) peers.send.addTrack(copy.track, copy.stream);
      var lane = {
        index: index,
        input: input,
        out: out,
        sender: peers.send.addTrack(out.track, out.stream),
        speaking: 0,
        copy: copy,
      };
      if (copy && !config.copyFirst) peers.send.addTrack(copy.track, copy.stream);
      if (copy) input.connect(copy.dest);
      lanes[index] = lane;
      return lane;
    }
    /* A lane's sound into its current sending track (and its redundant copy). */
    function connect(lane) {
      lane.input.connect(lane.out.dest);
      if (lane.copy) lane.input.connect(lane.copy.dest);
    }
    function transceiverOf(sender) {
      return (
        peers.send.getTransceivers().filter(function (t) {
          return t.sender === sender;
        })[0] || null
      );
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
      var i = slots.findIndex(function (s) {
        return s.speaker === speaker;
      });
      if (i < 0 && slots.length < config.slots) {
        i = slots.length;
        slots.push({ speaker: speaker, used: at });
      }
      if (i < 0) {
        i = 0;
        slots.forEach(function (s, j) {
          if (s.used < slots[i].used) i = j;
        });
        slots[i].speaker = speaker;
      }
      slots[i].used = at;
      return i;
    }
    /*
     * The lane of a slot, for one utterance to play on (done(lane) once it stopped); drawn 'late',
     * it is added (and negotiated) only now.
     */
    function laneFor(slot) {
      var lane = lanes[slot];
      if (lane) {
        lane.speaking++;
        return resumed(lane);
      }
      lane = addLane(slot);
      lane.speaking++;
      report('tracks_added', '1 track (slot ' + slot + ')');
      return peers.negotiate().then(function () {
        return lane;
      });
    }

    /*
     * Drawn idle 'paused': a lane's sending end stops the moment its last speech ends (the
     * transceiver inactive, in a new offer/answer: the receiving track is muted) and sends again
     * before its next speech. Negotiations run one at a time, so a pause and a resume keep their order.
     */
    function setSending(lane, sending) {
      var transceiver = transceiverOf(lane.sender);
      if (!transceiver || closed) return Promise.resolve();
      transceiver.direction = sending ? 'sendrecv' : 'inactive';
      return peers.negotiate().then(function () {
        report(sending ? 'track_resumed' : 'track_paused', 'slot ' + lane.index);
      });
    }
    function resumed(lane) {
      if (draw.idle !== 'paused' || !lane.paused) return Promise.resolve(lane);
      lane.paused = false;
      return setSending(lane, true).then(function () {
        return lane;
      });
    }
    function done(lane) {
      lane.speaking--;
      if (draw.idle !== 'paused' || lane.speaking > 0) return;
      lane.paused = true;
      setSending(lane, false);
    }

    if (draw.tracks === 'atJoin') {
      for (var i = 0; i < config.slots; i++) addLane(i);
      report(
        'tracks_added',
        config.slots +
          (config.slots === 1 ? ' track' : ' tracks') +
          ' at join' +
          (config.redundant ? ', each with a redundant copy' : ''),
      );
      peers.negotiate();
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
          connect(lane);
          lane.sender.replaceTrack(lane.out.track).then(function () {
            old.track.stop();
          });
        });
        report('track_replaced', current.length + ' sending track(s)');
      }
      if (draw.change === 'renegotiate') {
        var moved = current.map(function (lane) {
          var out = newTrack();
          named.push(out.track.id);
          return { lane: lane, out: out, sender: peers.send.addTrack(out.track, out.stream) };
        });
        peers.negotiate().then(function () {
          // The sound moves to the new tracks; the old ones stay, silent.
          moved.forEach(function (m) {
            m.lane.input.disconnect();
            m.lane.out = m.out;
            connect(m.lane);
            m.lane.sender = m.sender;
          });
          report('renegotiated', moved.length + ' new transceiver(s)');
        });
      }
      if (draw.change === 'recreateElement') report('element_recreated', received.recreate() + ' element(s)');
    }

    function play(u) {
      var slot = slotFor(u.speaker);
      var decoded = fetch(u.url)
        .then(function (r) {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.arrayBuffer();
        })
        .then(function (bytes) {
          return ctx.decodeAudioData(bytes);
        });
      Promise.all([decoded, laneFor(slot)])
        .then(function (both) {
          var buffer = both[0];
          var lane = both[1];
          if (closed) return;
          // On time: start at the scheduled moment. Late (a busy page): start now, all of it, as a
          // network delays speech rather than dropping it; what is more than MAX_LATE_MS late is
          // missed, never played stale.
          var wait = u.startAt - Date.now();
          if (-wait > MAX_LATE_MS) {
            done(lane);
            return report('missed', u.id + ' (' + -wait + ' ms late)');
          }
          var source = ctx.createBufferSource();
          source.buffer = buffer;
          source.connect(lane.input);
          source.start(wait > 0 ? contextTimeAt(u.startAt) : 0);
          playing.add(source);
          source.addEventListener('ended', function () {
            playing.delete(source);
            source.disconnect();
            done(lane);
            if (!changed && playing.size === 0) {
              changed = true;
              setTimeout(change, 100);
            }
          });
          post('played', {
            guest: local.guestId,
            id: u.id,
            startedAt: Date.now() + Math.max(0, wait),
            lateMs: Math.max(0, -wait),
            slot: lane.index,
            mid: (transceiverOf(lane.sender) || {}).mid || null,
          }).catch(function () {});
        })
        .catch(function (err) {
          report('failed', u.id + ': ' + err);
        });
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
        playing.forEach(function (source) {
          try {
            source.stop();
          } catch (e) {
            /* not started */
          }
        });
        received.close();
        ['pointerdown', 'keydown'].forEach(function (type) {
          document.removeEventListener(type, resume, true);
        });
        peers.close();
        ctx.close().catch(function () {});
      },
    };
  }
  return callAudio;
})(window.__SIMLIB__);
