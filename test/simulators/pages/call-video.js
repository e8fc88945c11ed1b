/*
 * The call's video in the simulated clients, received the way the real apps receive it: over
 * WebRTC from the platform's media server (media/video-page.js, in a Chromium of the
 * simulator's own), one VP8 track per participant whose camera is on, each shown in a <video>
 * element in that participant's tile. Inlined after common.js and before the client (html.ts):
 * it wraps the library's gallery() (to learn each participant's tile) and screens() (to start
 * the video on entering the call and end it on leaving), so the clients draw as before.
 *
 * What the client asks the server for follows what it shows, as the platforms do: a stream per
 * video tile, at the size of a tile in this window (SIZES: the smallest layer at least as wide),
 * none while incoming video is off (Teams' "Turn off incoming video", Zoom's "Stop Incoming
 * Video": videoView.setIncoming), at most the tiles a Meet layout shows (videoView.adjustView:
 * Meet's "Adjust view" dialog, layouts and the "Tiles" maximum). Each change is a new offer from
 * the server, answered here. Every 2 s the page tells the simulator what its receivers decoded.
 */
window.__SIMLIB__.videoView = (function (L) {
  'use strict';
  var h = L.h;
  var SIZES = [
    [160, 90],
    [320, 180],
    [640, 360],
    [1280, 720],
  ];
  var tiles = {};
  var session = null;
  var view = { incoming: true, layout: 'Auto', maxTiles: 16 };

  function api(path, body) {
    return fetch('/_sim/video/' + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (r) {
      return r.json();
    });
  }
  var loopback = window.__mediaPeer.loopback;
  var gathered = window.__mediaPeer.gathered;

  /* Streams wanted: a tile each, within the layout's maximum (Meet counts the own tile in it). */
  function wanted(cameras) {
    if (!view.incoming) return 0;
    if (view.layout === 'Spotlight') return Math.min(1, cameras);
    return Math.max(0, Math.min(cameras, view.maxTiles - 1));
  }
  function tileSize(streams) {
    var cols = Math.ceil(Math.sqrt(streams + 1));
    var width = window.innerWidth / cols;
    for (var i = 0; i < SIZES.length; i++) if (SIZES[i][0] >= width) return SIZES[i];
    return SIZES[SIZES.length - 1];
  }

  function show(s, mid, stream) {
    var name = s.names[mid];
    var tile = name && tiles[name];
    if (!tile) return;
    var el = tile.__simVideo;
    if (!el) {
      el = h('video', {
        autoplay: '',
        playsinline: '',
        style: 'display:block;width:100%;max-height:100%;object-fit:cover',
      });
      el.muted = true;
      tile.insertBefore(el, tile.firstChild);
      tile.__simVideo = el;
    }
    if (el.srcObject !== stream) {
      el.srcObject = stream;
      var p = el.play();
      if (p) p.catch(function () {});
    }
  }

  function answer(s, sdp) {
    var pc = s.pc;
    return pc
      .setRemoteDescription({ type: 'offer', sdp: loopback(sdp) })
      .then(function () {
        return pc.createAnswer();
      })
      .then(function (a) {
        return pc.setLocalDescription(a);
      })
      .then(function () {
        return gathered(pc);
      })
      .then(function () {
        if (s.closed) return;
        return api('answer', { id: s.id, sdp: loopback(pc.localDescription.sdp) });
      });
  }

  function open(local) {
    var s = { id: null, pc: null, names: {}, closed: false, chain: null, timer: null, cameras: 0, asked: '' };
    var size = tileSize(4);
    s.chain = api('open', { guest: local.guestId, count: wanted(16), width: size[0], height: size[1] })
      .then(function (opened) {
        if (!opened.id || s.closed) return;
        s.id = opened.id;
        s.cameras = opened.names.length;
        opened.names.forEach(function (n) {
          s.names[n.mid] = n.name;
        });
        s.pc = new RTCPeerConnection();
        s.pc.addEventListener('track', function (e) {
          show(s, e.transceiver.mid, e.streams[0] || new MediaStream([e.track]));
        });
        s.timer = setInterval(function () {
          report(s);
        }, 2000);
        return answer(s, opened.sdp).then(function () {
          follow(s);
        });
      })
      .catch(function () {});
    return s;
  }

  /* Ask the server again when what the page shows changed. */
  function follow(s) {
    if (!s || !s.id || s.closed) return;
    var count = wanted(s.cameras);
    var size = tileSize(count);
    var key = count + ':' + size.join('x');
    if (key === s.asked) return;
    s.asked = key;
    s.chain = s.chain
      .then(function () {
        return api('subscribe', { id: s.id, count: count, width: size[0], height: size[1] });
      })
      .then(function (r) {
        if (r.sdp && !s.closed) return answer(s, r.sdp);
      })
      .catch(function () {});
  }

  function report(s) {
    if (!s.pc || s.closed) return;
    s.pc
      .getStats()
      .then(function (stats) {
        var decoded = 0;
        var received = 0;
        stats.forEach(function (r) {
          if (r.type !== 'inbound-rtp' || r.kind !== 'video') return;
          decoded += r.framesDecoded || 0;
          received += r.framesReceived || 0;
        });
        return api('stats', { id: s.id, framesDecoded: decoded, framesReceived: received });
      })
      .catch(function () {});
  }

  function close(s) {
    if (!s || s.closed) return;
    s.closed = true;
    clearInterval(s.timer);
    if (s.pc) s.pc.close();
    if (s.id) api('close', { id: s.id }).catch(function () {});
  }

  var gallery = L.gallery;
  L.gallery = function (host, keysOf, draw, markSpeaking) {
    return gallery(
      host,
      keysOf,
      function (p, key) {
        var tile = draw(p, key);
        if (key === p.id && !p.self) {
          tiles[p.name] = tile;
          if (session && session.pc)
            session.pc.getTransceivers().forEach(function (t) {
              if (session.names[t.mid] === p.name && t.receiver.track)
                show(session, t.mid, new MediaStream([t.receiver.track]));
            });
        }
        return tile;
      },
      markSpeaking,
    );
  };

  var screens = L.screens;
  L.screens = function (local, media, draw, audio) {
    var render = screens(local, media, draw, audio);
    return function (view) {
      render(view);
      var inCall = view.screen === 'in_call';
      if (inCall && !session && window.RTCPeerConnection) session = open(local);
      if (!inCall && session) {
        close(session);
        session = null;
        tiles = {};
      }
    };
  };

  /* Meet's "Adjust view" (More options -> Change layout): a layout, and the most tiles to show. */
  function adjustView() {
    var old = document.getElementById('sim-adjust-view');
    if (old) old.remove();
    var layouts = ['Auto', 'Tiled', 'Spotlight', 'Sidebar'];
    var labels = { Auto: 'Auto (dynamic)', Tiled: 'Tiled (legacy)', Spotlight: 'Spotlight', Sidebar: 'Sidebar' };
    var slider = h('input', {
      type: 'range',
      min: '2',
      max: '49',
      step: '1',
      value: String(view.maxTiles),
      'aria-label': 'Tiles',
      'aria-valuetext': view.maxTiles + ' tiles',
    });
    function changed() {
      view.maxTiles = Number(slider.value);
      slider.setAttribute('aria-valuetext', view.maxTiles + ' tiles');
      follow(session);
    }
    slider.addEventListener('input', changed);
    slider.addEventListener('change', changed);
    var dialog = h('div', { id: 'sim-adjust-view', role: 'dialog', 'aria-label': 'Adjust view' }, [
      h('h2', {}, 'Adjust view'),
      h(
        'div',
        { role: 'radiogroup', 'aria-label': 'Layout' },
        layouts.map(function (l) {
          var input = h('input', { type: 'radio', name: 'sim-layout', 'aria-label': labels[l] });
          input.checked = view.layout === l;
          input.addEventListener('change', function () {
            view.layout = l;
            follow(session);
          });
          return h('label', {}, [input, h('span', {}, labels[l])]);
        }),
      ),
      h('div', {}, [h('span', {}, 'Tiles'), h('span', {}, 'Maximum tiles to display'), slider]),
      h(
        'button',
        {
          type: 'button',
          'aria-label': 'Close',
          onclick: function () {
            dialog.remove();
          },
        },
        'Close',
      ),
    ]);
    document.body.appendChild(dialog);
  }

  return {
    get incoming() {
      return view.incoming;
    },
    /* Teams' "Turn off incoming video" / Zoom's "Stop Incoming Video", and back on. */
    setIncoming: function (on) {
      view.incoming = on;
      follow(session);
    },
    adjustView: adjustView,
  };
})(window.__SIMLIB__);
