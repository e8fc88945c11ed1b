/*
 * The call's sound in the simulated clients, received the way the real apps receive it: over
 * WebRTC from the platform's media server (media/audio-page.js, in a Chromium of the simulator's
 * own, which plays the meeting's utterances into Opus tracks), into <audio> elements. Inlined
 * after common.js (see html.ts), it adds callAudio to the clients' library; common.js's screens()
 * starts it on entering the call and closes it on leaving.
 */
window.__SIMLIB__.callAudio = (function (L) {
  'use strict';
  var h = L.h;
  var post = L.post;

  function api(path, body) {
    return fetch('/_sim/call-audio/' + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    });
  }
  var loopback = window.__mediaPeer.loopback;

  /*
   * The receiving app's <audio> elements: every remote stream of `recv` rendered in one (srcObject,
   * autoplay), as Meet and Teams do, where this page load puts them (placement: the end of <body>,
   * the call's screen, i.e. the first element of `root`, or a hidden container at the start of
   * <body>). recreate() replaces every element by a new one for the same stream. An element
   * whose play() the autoplay policy refuses is reported blocked (audio_blocked) and played again
   * on the page's next user gesture (audio_resumed once it plays).
   */
  function audioElements(recv, placement, root, report) {
    var elements = [];
    var hiddenHost = null;
    var blocked = false;
    function start(el) {
      var playback = el.play();
      if (!playback) return;
      playback.catch(function (err) {
        if (!err || err.name !== 'NotAllowedError' || blocked) return;
        blocked = true;
        report('audio_blocked', '<audio> play(): ' + err.message);
        ['pointerdown', 'keydown'].forEach(function (type) {
          document.addEventListener(type, resume, true);
        });
      });
    }
    function resume() {
      if (!blocked) return;
      Promise.all(
        elements.map(function (x) {
          return x.el.play();
        }),
      )
        .then(function () {
          if (!blocked) return;
          blocked = false;
          ['pointerdown', 'keydown'].forEach(function (type) {
            document.removeEventListener(type, resume, true);
          });
          report('audio_resumed');
        })
        .catch(function () {});
    }
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
      start(el);
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
        ['pointerdown', 'keydown'].forEach(function (type) {
          document.removeEventListener(type, resume, true);
        });
      },
    };
  }

  /*
   * The call's sound: a session with the media server (/_sim/call-audio/), which sends it; this
   * page receives it in one RTCPeerConnection, answering each offer the server makes (tracks at
   * join or late, pauses, renegotiations: the page asks for what the server has, `next`, when its
   * event stream carries a "call-audio" event), and renders the tracks in <audio> elements (audioElements). The server is told how
   * this page receives: config.slots (Meet three tracks, Teams and Zoom one), config.mixName
   * (Teams' mix, mainAudio-<id>), config.redundant and config.copyFirst (Teams' redundant copy),
   * and this page load's draw (SIM.audioTracks, SIM.audioChange, SIM.audioIdle; AudioVariation in
   * types.ts); where the elements go is this page's (SIM.audioElements; config.root: the
   * client's root, whose first element is the call screen). What the server plays is reported by
   * the server (played, audio-event); what this page does (ICE, its elements) by this page.
   */
  function callAudio(local, config) {
    var SIM = window.__SIM__ || {};
    var closed = false;
    var id = null;
    function report(event, detail) {
      if (closed) return;
      post('audio-event', {
        guest: local.guestId,
        event: event,
        at: Date.now(),
        detail: detail === undefined ? undefined : String(detail),
      }).catch(function () {});
    }
    var pc = new RTCPeerConnection();
    var received = audioElements(pc, SIM.audioElements || 'body', config.root, report);
    pc.addEventListener('iceconnectionstatechange', function () {
      if (pc.iceConnectionState === 'connected') report('ice_connected');
      if (pc.iceConnectionState === 'failed') report('failed', 'ICE failed');
    });

    function answer(sdp) {
      return pc
        .setRemoteDescription({ type: 'offer', sdp: loopback(sdp) })
        .then(function () {
          return pc.createAnswer();
        })
        .then(function (a) {
          return pc.setLocalDescription(a);
        })
        .then(function () {
          // Sent at once, without waiting for this end's candidates (the first gathering takes
          // hundreds of ms): the server's offer carries its own, which this end's checks reach,
          // and the server learns this end's address from them, as from a client behind NAT.
          if (!closed) return api('answer', { id: id, sdp: loopback(pc.localDescription.sdp) });
        });
    }
    function handle(message) {
      if (closed) return;
      if (message.type === 'offer')
        return answer(message.sdp).catch(function (err) {
          report('failed', 'negotiation: ' + err);
        });
      if (message.type === 'recreate') report('element_recreated', received.recreate() + ' element(s)');
    }
    /*
     * Asks the server for what it has whenever the event stream says there is something, and
     * handles it in order (an offer answered before the next is taken).
     */
    var handling = Promise.resolve();
    function fetchMessages() {
      if (closed || !id) return;
      handling = handling.then(function () {
        if (closed) return;
        return api('next', { id: id })
          .then(function (r) {
            return r.messages.reduce(function (done, message) {
              return done.then(function () {
                return handle(message);
              });
            }, Promise.resolve());
          })
          .catch(function (err) {
            report('failed', 'media server: ' + err);
          });
      });
    }
    if (local.source) local.source.addEventListener('call-audio', fetchMessages);

    api('open', {
      guest: local.guestId,
      slots: config.slots,
      mixName: config.mixName || null,
      redundant: !!config.redundant,
      copyFirst: !!config.copyFirst,
      tracks: SIM.audioTracks || 'atJoin',
      change: SIM.audioChange || 'none',
      idle: SIM.audioIdle || 'silence',
    })
      .then(function (opened) {
        if (!opened.id) return;
        id = opened.id;
        if (closed) return api('close', { id: id });
        fetchMessages();
      })
      .catch(function (err) {
        report('failed', 'media server: ' + err);
      });

    return {
      close: function () {
        closed = true;
        if (local.source) local.source.removeEventListener('call-audio', fetchMessages);
        received.close();
        pc.close();
        if (id) api('close', { id: id }).catch(function () {});
      },
    };
  }
  return callAudio;
})(window.__SIMLIB__);
