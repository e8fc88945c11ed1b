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
   * way a real client swaps whole screens); an in-call view then repaints tiles and captions.
   */
  function screens(local, media, draw) {
    return function render(view) {
      local.lastView = view;
      if (view.screen !== local.screen) {
        local.screen = view.screen;
        draw.reset();
        if (view.screen === 'lobby') draw.lobby();
        if (view.screen === 'in_call') draw.call();
        if (view.screen === 'terminal') {
          media.stop();
          local.source.close();
          draw.end(view.terminal);
        }
      }
      if (view.screen === 'in_call') draw.paint(view);
    };
  }
  return { h: h, wrap: wrap, post: post, avatar: avatar, media: media, connect: connect, screens: screens };
})();
