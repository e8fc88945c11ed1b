/*
 * The platforms' media server for video, in the simulator's own Chromium page (server.ts):
 * per bot page a session, one RTCPeerConnection sending one VP8 track per participant whose
 * camera is on, each a canvas drawn here (a moving disc, the name, a frame counter) and captured
 * at the camera's fps. The bot page subscribes to as many streams as it shows tiles for, at the
 * tiles' size (subscribe): streams beyond go inactive and their canvases stop being drawn, as a
 * media server forwards only what a client asked for. Offers are complete (ICE gathered) so one
 * HTTP round trip carries each; this machine's mDNS names are given as the loopback address.
 */
(function () {
  'use strict';
  var sessions = {};
  var HUES = [12, 140, 210, 280, 50, 330];

  var loopback = window.__mediaPeer.loopback;
  var gathered = window.__mediaPeer.gathered;
  function offer(s) {
    return s.pc
      .createOffer()
      .then(function (o) {
        return s.pc.setLocalDescription(o);
      })
      .then(function () {
        return gathered(s.pc);
      })
      .then(function () {
        return loopback(s.pc.localDescription.sdp);
      });
  }

  /* A camera: a canvas the size the bot's tile asked for, redrawn every frame while subscribed. */
  function camera(name, index, fps) {
    var canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 180;
    var g = canvas.getContext('2d');
    var frame = 0;
    var stream = canvas.captureStream(fps);
    return {
      name: name,
      canvas: canvas,
      track: stream.getVideoTracks()[0],
      stream: stream,
      on: true,
      draw: function () {
        if (!this.on) return;
        var w = canvas.width;
        var ht = canvas.height;
        frame++;
        g.fillStyle = 'hsl(' + HUES[index % HUES.length] + ',45%,35%)';
        g.fillRect(0, 0, w, ht);
        var t = frame / fps;
        g.fillStyle = '#fff';
        g.beginPath();
        g.arc(w / 2 + (Math.cos(t) * w) / 3, ht / 2 + (Math.sin(t * 1.3) * ht) / 3, ht / 6, 0, Math.PI * 2);
        g.fill();
        g.font = Math.max(10, Math.round(ht / 10)) + 'px sans-serif';
        g.fillText(name + ' ' + frame, 8, ht - 10);
      },
    };
  }

  window.__sender = {
    open: function (id, names, fps) {
      var pc = new RTCPeerConnection();
      var s = { pc: pc, cameras: [], fps: fps, timer: null };
      names.forEach(function (name, i) {
        var cam = camera(name, i, fps);
        var t = pc.addTransceiver(cam.track, { direction: 'sendonly', streams: [cam.stream] });
        var vp8 = RTCRtpSender.getCapabilities('video').codecs.filter(function (c) {
          return /vp8/i.test(c.mimeType);
        });
        if (t.setCodecPreferences && vp8.length) t.setCodecPreferences(vp8);
        cam.transceiver = t;
        s.cameras.push(cam);
      });
      s.timer = setInterval(function () {
        s.cameras.forEach(function (c) {
          c.draw();
        });
      }, 1000 / fps);
      sessions[id] = s;
      return offer(s).then(function (sdp) {
        return {
          sdp: sdp,
          names: s.cameras.map(function (c) {
            return { mid: c.transceiver.mid, name: c.name };
          }),
        };
      });
    },
    answer: function (id, sdp) {
      var s = sessions[id];
      if (!s) return Promise.resolve(false);
      return s.pc.setRemoteDescription({ type: 'answer', sdp: loopback(sdp) }).then(function () {
        return true;
      });
    },
    /* The bot page shows `count` video tiles of width x height: the first `count` cameras at that size. */
    subscribe: function (id, count, width, height) {
      var s = sessions[id];
      if (!s) return Promise.resolve(null);
      s.cameras.forEach(function (c, i) {
        c.on = i < count;
        c.transceiver.direction = c.on ? 'sendonly' : 'inactive';
        if (c.canvas.width !== width || c.canvas.height !== height) {
          c.canvas.width = width;
          c.canvas.height = height;
        }
      });
      return offer(s);
    },
    stats: function (id) {
      var s = sessions[id];
      if (!s) return Promise.resolve(null);
      return s.pc.getStats().then(function (report) {
        var out = { framesEncoded: 0, framesSent: 0, bytesSent: 0, streams: 0, width: 0, height: 0 };
        report.forEach(function (r) {
          if (r.type !== 'outbound-rtp' || r.kind !== 'video') return;
          out.framesEncoded += r.framesEncoded || 0;
          out.framesSent += r.framesSent || 0;
          out.bytesSent += r.bytesSent || 0;
          if (r.frameWidth) {
            out.streams++;
            out.width = Math.max(out.width, r.frameWidth);
            out.height = Math.max(out.height, r.frameHeight || 0);
          }
        });
        out.sending = s.cameras.filter(function (c) {
          return c.on;
        }).length;
        return out;
      });
    },
    close: function (id) {
      var s = sessions[id];
      if (!s) return;
      clearInterval(s.timer);
      s.cameras.forEach(function (c) {
        c.track.stop();
      });
      s.pc.close();
      delete sessions[id];
    },
  };
})();
