/*
 * The platforms' media server for the call's sound, in the simulator's own Chromium page
 * (server.ts): per bot page a session, one RTCPeerConnection sending Opus tracks (lanes) that the
 * meeting's utterances play into, from their scheduled time, through WebAudio (AudioBufferSourceNode
 * -> gain -> MediaStreamAudioDestinationNode); between utterances the tracks carry silence. One
 * AudioContext serves every session, and each speech's WAV is decoded once (load) for all.
 *
 * config.slots: lanes; Meet has three, one per recent speaker (a speaker without one takes the
 * least recently used), Teams and Zoom one, mixing everybody. config.mixName: the name (prefix)
 * of the tracks the server sends (Teams' mix: mainAudio-<id>, in the offers' msid: the receiving
 * page's track ids follow the offer's), and config.redundant: each lane also sent on a second,
 * unnamed track carrying the same sound (Teams' redundant track), offered before the named one
 * where config.copyFirst. How tracks come and change is the bot page load's draw (config.tracks,
 * config.change, config.idle; AudioVariation in types.ts).
 *
 * The server offers, the bot page answers (call-audio.js): one offer/answer at a time, each offer
 * complete (ICE gathered) and reported (report 'offer'), its answer handed back by answer(). What
 * the session does is reported too, for the ground truth: 'played' (an utterance's sound left
 * the server at startedAt), 'event' (tracks added, replaced, renegotiated, paused...), and
 * 'recreate' (the page load's change is the bot page's own: re-creating its <audio> elements).
 */
(function () {
  'use strict';
  /* A session this late for an utterance (a starved machine) skips it rather than play it stale. */
  var MAX_LATE_MS = 10000;
  /* An answer that has not come in this long fails the negotiation (the bot page went away). */
  var ANSWER_TIMEOUT_MS = 30000;
  var sessions = {};
  var decoded = {};
  var ctx = null;

  function context() {
    if (!ctx) ctx = new AudioContext();
    if (ctx.state !== 'running') ctx.resume().catch(function () {});
    return ctx;
  }
  function send(message) {
    window.__mediaReport(JSON.stringify(message));
  }
  var loopback = window.__mediaPeer.loopback;
  var gathered = window.__mediaPeer.gathered;
  function base64Bytes(text) {
    var raw = atob(text);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes.buffer;
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

  function session(id, config) {
    var pc = new RTCPeerConnection();
    var s = {
      closed: false,
      pc: pc,
      lanes: [],
      slots: [],
      played: {},
      playing: new Set(),
      changed: false,
      chain: Promise.resolve(),
      ready: Promise.resolve(),
      waiting: null,
      sources: [],
    };
    function report(event, detail) {
      if (s.closed) return;
      send({
        session: id,
        type: 'event',
        event: event,
        at: Date.now(),
        detail: detail === undefined ? undefined : String(detail),
      });
    }
    s.report = report;
    // The sending tracks named config.mixName-<id> in the offers (by the id each was first offered with).
    var named = [];
    function rename(sdp) {
      if (!config.mixName) return sdp;
      return named.reduce(function (text, trackId) {
        return text.split(' ' + trackId).join(' ' + config.mixName + '-' + trackId);
      }, sdp);
    }

    /* One offer/answer at a time, the server offering; resolved once the bot page's answer is set. */
    function negotiate() {
      s.chain = s.chain
        .then(function () {
          if (s.closed) return;
          return pc
            .createOffer()
            .then(function (offer) {
              return pc.setLocalDescription(offer);
            })
            .then(function () {
              return gathered(pc);
            })
            .then(function () {
              if (s.closed) return;
              var answered = new Promise(function (resolve, reject) {
                var timer = setTimeout(function () {
                  reject(new Error('no answer in ' + ANSWER_TIMEOUT_MS + ' ms'));
                }, ANSWER_TIMEOUT_MS);
                s.waiting = function (sdp) {
                  clearTimeout(timer);
                  resolve(sdp);
                };
              });
              send({ session: id, type: 'offer', sdp: rename(loopback(pc.localDescription.sdp)) });
              return answered.then(function (sdp) {
                if (s.closed) return;
                return pc.setRemoteDescription({ type: 'answer', sdp: loopback(sdp) });
              });
            });
        })
        .catch(function (err) {
          report('failed', 'negotiation: ' + err);
        });
      return s.chain;
    }
    s.answer = function (sdp) {
      var waiting = s.waiting;
      s.waiting = null;
      if (waiting) waiting(sdp);
      return !!waiting;
    };

    /* A sending track: utterances play into a lane's `input`, which feeds whichever track is current. */
    function newTrack() {
      var dest = context().createMediaStreamDestination();
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
      s.sources.push(silence);
      var out = newTrack();
      input.connect(out.dest);
      named.push(out.track.id);
      // The redundant copy offered before the mix or after it (config.copyFirst): a page takes either order.
      var copy = config.redundant ? newTrack() : null;
      if (copy && config.copyFirst) pc.addTrack(copy.track, copy.stream);
      var lane = {
        index: index,
        input: input,
        out: out,
        sender: pc.addTrack(out.track, out.stream),
        speaking: 0,
        copy: copy,
      };
      if (copy && !config.copyFirst) pc.addTrack(copy.track, copy.stream);
      if (copy) input.connect(copy.dest);
      s.lanes[index] = lane;
      return lane;
    }
    /* A lane's sound into its current sending track (and its redundant copy). */
    function connect(lane) {
      lane.input.connect(lane.out.dest);
      if (lane.copy) lane.input.connect(lane.copy.dest);
    }
    function transceiverOf(sender) {
      return (
        pc.getTransceivers().filter(function (t) {
          return t.sender === sender;
        })[0] || null
      );
    }

    /* The lane for a speaker: their own, a free one, else the least recently used. */
    function slotFor(speaker) {
      var at = performance.now();
      var slots = s.slots;
      var i = slots.findIndex(function (x) {
        return x.speaker === speaker;
      });
      if (i < 0 && slots.length < config.slots) {
        i = slots.length;
        slots.push({ speaker: speaker, used: at });
      }
      if (i < 0) {
        i = 0;
        slots.forEach(function (x, j) {
          if (x.used < slots[i].used) i = j;
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
      var lane = s.lanes[slot];
      if (lane) {
        lane.speaking++;
        // A lane offered at join carries sound once the page answered (an utterance said meanwhile starts late).
        return s.ready.then(function () {
          return resumed(lane);
        });
      }
      lane = addLane(slot);
      lane.speaking++;
      report('tracks_added', '1 track (slot ' + slot + ')');
      return negotiate().then(function () {
        return lane;
      });
    }

    /*
     * Drawn idle 'paused': a lane stops sending the moment its last speech ends (the transceiver
     * inactive, in a new offer/answer: the receiving track is muted) and sends again before its
     * next speech. Negotiations run one at a time, so a pause and a resume keep their order.
     */
    function setSending(lane, sending) {
      var transceiver = transceiverOf(lane.sender);
      if (!transceiver || s.closed) return Promise.resolve();
      transceiver.direction = sending ? 'sendrecv' : 'inactive';
      return negotiate().then(function () {
        report(sending ? 'track_resumed' : 'track_paused', 'slot ' + lane.index);
      });
    }
    function resumed(lane) {
      if (config.idle !== 'paused' || !lane.paused) return Promise.resolve(lane);
      lane.paused = false;
      return setSending(lane, true).then(function () {
        return lane;
      });
    }
    function done(lane) {
      lane.speaking--;
      if (config.idle !== 'paused' || lane.speaking > 0) return;
      lane.paused = true;
      setSending(lane, false);
    }

    /* Once, just after the first utterance this session played: the change the page load drew. */
    function change() {
      if (s.closed || config.change === 'none') return;
      var current = s.lanes.filter(Boolean);
      if (config.change === 'replaceTrack') {
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
      if (config.change === 'renegotiate') {
        var moved = current.map(function (lane) {
          var out = newTrack();
          named.push(out.track.id);
          return { lane: lane, out: out, sender: pc.addTrack(out.track, out.stream) };
        });
        negotiate().then(function () {
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
      // The bot page's own elements: it re-creates them and reports it.
      if (config.change === 'recreateElement') send({ session: id, type: 'recreate' });
    }

    s.play = function (u) {
      if (s.closed || s.played[u.id]) return;
      s.played[u.id] = true;
      var slot = slotFor(u.speaker);
      var buffer = decoded[u.speech] || Promise.reject(new Error('speech ' + u.speech + ' not loaded'));
      Promise.all([buffer, laneFor(slot)])
        .then(function (both) {
          var audio = both[0];
          var lane = both[1];
          if (s.closed) return;
          // On time: start at the scheduled moment. Late (a busy machine): start now, all of it, as
          // a network delays speech rather than dropping it; what is more than MAX_LATE_MS late is
          // missed, never played stale.
          var wait = u.startAt - Date.now();
          if (-wait > MAX_LATE_MS) {
            done(lane);
            return report('missed', u.id + ' (' + -wait + ' ms late)');
          }
          var source = ctx.createBufferSource();
          source.buffer = audio;
          source.connect(lane.input);
          source.start(wait > 0 ? contextTimeAt(u.startAt) : 0);
          s.playing.add(source);
          source.addEventListener('ended', function () {
            s.playing.delete(source);
            source.disconnect();
            if (s.closed) return;
            done(lane);
            if (!s.changed && s.playing.size === 0) {
              s.changed = true;
              setTimeout(change, 100);
            }
          });
          send({
            session: id,
            type: 'played',
            id: u.id,
            startedAt: Date.now() + Math.max(0, wait),
            lateMs: Math.max(0, -wait),
            slot: lane.index,
            mid: (transceiverOf(lane.sender) || {}).mid || null,
          });
        })
        .catch(function (err) {
          report('failed', u.id + ': ' + err);
        });
    };

    s.close = function () {
      s.closed = true;
      if (s.waiting) s.waiting('');
      s.playing.forEach(function (source) {
        try {
          source.stop();
        } catch (e) {
          /* not started */
        }
        source.disconnect();
      });
      s.sources.forEach(function (source) {
        source.stop();
        source.disconnect();
      });
      s.lanes.forEach(function (lane) {
        if (!lane) return;
        lane.input.disconnect();
        lane.out.track.stop();
        if (lane.copy) lane.copy.track.stop();
      });
      pc.getSenders().forEach(function (sender) {
        if (sender.track) sender.track.stop();
      });
      pc.close();
    };

    context();
    if (config.tracks === 'atJoin') {
      for (var i = 0; i < config.slots; i++) addLane(i);
      report(
        'tracks_added',
        config.slots +
          (config.slots === 1 ? ' track' : ' tracks') +
          ' at join' +
          (config.redundant ? ', each with a redundant copy' : ''),
      );
      s.ready = negotiate();
    }
    return s;
  }

  window.__audio = {
    open: function (id, config) {
      if (sessions[id]) return;
      sessions[id] = session(id, config);
    },
    answer: function (id, sdp) {
      var s = sessions[id];
      return !!s && s.answer(sdp);
    },
    /* A speech's WAV (base64), decoded once for every session that plays it. */
    load: function (speech, base64) {
      if (decoded[speech]) return decoded[speech].then(function () {});
      decoded[speech] = context().decodeAudioData(base64Bytes(base64));
      decoded[speech].catch(function () {
        delete decoded[speech];
      });
      return decoded[speech].then(function () {});
    },
    play: function (id, u) {
      var s = sessions[id];
      if (s) s.play(u);
    },
    close: function (id) {
      var s = sessions[id];
      if (!s) return;
      delete sessions[id];
      s.close();
    },
  };
})();
