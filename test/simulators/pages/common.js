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
    }).then(function (r) {
      return r.json();
    });
  }
  function avatar(name) {
    var letter = (name || '?').trim().charAt(0).toUpperCase();
    var svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><circle cx="16" cy="16" r="16" fill="#5b8def"/>' +
      '<text x="16" y="21" font-size="14" text-anchor="middle" fill="#fff">' +
      letter +
      '</text></svg>';
    return 'data:image/svg+xml,' + encodeURIComponent(svg);
  }
  /** Live media like the real apps ask for; the bot's fake devices answer without a prompt. */
  function media(state) {
    return {
      start: function (video) {
        if (!navigator.mediaDevices) return;
        navigator.mediaDevices
          .getUserMedia({ audio: true, video: true })
          .then(
            function (stream) {
              state.stream = stream;
              if (video) video.srcObject = stream;
              this.apply();
            }.bind(this),
          )
          .catch(function () {
            state.mediaDenied = true;
          });
      },
      apply: function () {
        if (!state.stream) return;
        state.stream.getAudioTracks().forEach(function (t) {
          t.enabled = state.micOn;
        });
        state.stream.getVideoTracks().forEach(function (t) {
          if (!state.camOn) t.stop();
        });
      },
      stop: function () {
        if (state.stream)
          state.stream.getTracks().forEach(function (t) {
            t.stop();
          });
        state.stream = null;
      },
    };
  }
  /*
   * Runs a platform's client: body(L, SIM, C, root) with this library, the page's config
   * (window.__SIM__, with the seed's draws), the class names drawn for its roles, and the element
   * its screens are drawn in (SIM.rootId, see html.ts).
   */
  function client(body) {
    var SIM = window.__SIM__;
    body(window.__SIMLIB__, SIM, SIM.cls, document.getElementById(SIM.rootId));
  }
  /*
   * A client's state: its own mic and camera (on until turned off), the guest it joined as and the
   * event stream of its views, the screen shown and the last view, the call screen's elements (ui),
   * captions (on or off; allowed by the host, null till the first view says), the call's speaking
   * timeline and audio. `own` adds the platform's.
   */
  function state(own) {
    return Object.assign(
      {
        micOn: true,
        camOn: true,
        guestId: null,
        source: null,
        screen: null,
        lastView: null,
        ui: null,
        captionsOn: false,
        captionsAllowed: null,
        speaking: null,
        audio: null,
      },
      own,
    );
  }
  /* The simulator took the client in as `guestId`: from now on its views come over the event stream. */
  function connect(local, guestId, onView) {
    local.guestId = guestId;
    local.source = new EventSource('/_sim/api/events?guest=' + encodeURIComponent(guestId));
    local.source.onmessage = function (event) {
      onView(JSON.parse(event.data));
    };
  }
  /*
   * A client's texts in the wording this page load drew (SIM.screenWording, Zoom's SIM.wording):
   * each entry lists its wordings, the best-known first; 'b' picks the second, 'c' the third...,
   * as other builds, tenants and locales word it, where the entry has one (else the first).
   */
  function worded(wording, texts) {
    var index = String(wording || 'a').charCodeAt(0) - 97;
    var words = {};
    Object.keys(texts).forEach(function (key) {
      var ways = texts[key];
      words[key] = ways[index] || ways[0];
    });
    return words;
  }

  /*
   * The view handler of a client: a screen is drawn once, when the view asks for another one (the
   * way a real client swaps whole screens); an in-call view then repaints the call and plays the
   * speech it carries on the speaking indicators. What lives exactly as long as the in-call screen:
   * the call's audio (callAudio, in call-audio.js, received from the simulator's media server;
   * `audio` says how the platform receives it) and its speaking timeline (local.speaking).
   *
   * draw: reset() clears what the last screen left, lobby(), call() and end(terminal) draw the
   * screens; in the call, people(participants, speaking) shows who is in it and who of them speaks
   * now (on every view, and whenever the speaking changes), captions(entries) shows the captions,
   * and captionsSetting follows the host's captions setting (see allowCaptions).
   */
  function screens(local, media, draw, audio) {
    function paintPeople() {
      draw.people(local.lastView.participants, local.speaking.names());
    }
    return function render(view) {
      local.lastView = view;
      if (view.screen !== local.screen) {
        if (local.audio) {
          local.audio.close();
          local.audio = null;
        }
        if (local.speaking) {
          local.speaking.close();
          local.speaking = null;
        }
        local.screen = view.screen;
        draw.reset();
        if (view.screen === 'lobby') draw.lobby();
        if (view.screen === 'in_call') {
          draw.call();
          local.speaking = speakingTimeline(paintPeople);
          // A page that chose no audio (Teams' "Don't use audio") hears nothing of the call.
          if (audio && !local.noAudio && window.RTCPeerConnection) {
            try {
              local.audio = window.__SIMLIB__.callAudio(local, audio);
            } catch (err) {
              // The call goes on without sound, as a real client's would; the truth says why.
              post('audio-event', { guest: local.guestId, event: 'failed', at: Date.now(), detail: String(err) }).catch(
                function () {},
              );
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
        allowCaptions(local, view.captionsAllowed !== false, draw.captionsSetting);
        local.speaking.update(view.speech || []);
        paintPeople();
        draw.captions(view.captions);
      }
    };
  }

  /*
   * The host turned captions off for the call, or back on (the view's captionsAllowed): captions
   * on go off (setting.set(false)), the platform redraws its captions controls (setting.redraw:
   * disabled or gone while off, SIM.captionsRefused), and a notice says so in the platform's words
   * (setting.notices: [back on, off]). Allowed again, captions stay off until turned on.
   */
  function allowCaptions(local, allowed, setting) {
    var before = local.captionsAllowed;
    if (allowed === before) return;
    local.captionsAllowed = allowed;
    if (!allowed && local.captionsOn) setting.set(false);
    setting.redraw();
    // The first view only says how the call started: nothing changed, nothing to announce.
    if (before !== null) toast(allowed ? setting.notices[0] : setting.notices[1]);
  }

  /*
   * Who is speaking now, as the platforms' speaking indicators show it: each utterance of the view
   * lights its speaker from its sound's start until SPEAKING_TAIL_MS after its end (the indicators
   * trail the voice a little); overlapping utterances light both speakers, an `unseen` one nobody. Timed from the
   * utterance's own window, as the platform's server tells every client who speaks, not from when
   * this page happens to play the sound. onChange(names) is called whenever the set changes.
   */
  var SPEAKING_TAIL_MS = 300;
  function speakingTimeline(onChange) {
    var seen = {};
    var timers = [];
    var lit = {};
    function names() {
      return Object.keys(lit).filter(function (name) {
        return lit[name] > 0;
      });
    }
    function light(speaker, by) {
      var before = names().join('\n');
      lit[speaker] = (lit[speaker] || 0) + by;
      if (names().join('\n') !== before) onChange(names());
    }
    function at(time, fn) {
      timers.push(setTimeout(fn, Math.max(0, time - Date.now())));
    }
    return {
      names: names,
      update: function (speech) {
        speech.forEach(function (u) {
          if (seen[u.id] || u.unseen) return;
          seen[u.id] = true;
          at(u.startAt, function () {
            light(u.speaker, 1);
          });
          at(u.startAt + u.durationMs + SPEAKING_TAIL_MS, function () {
            light(u.speaker, -1);
          });
        });
      },
      close: function () {
        timers.forEach(clearTimeout);
        timers = [];
        lit = {};
      },
    };
  }

  /*
   * The call's tiles as Meet and Teams show them (and Zoom its video tiles), kept in step with the view's participants: a
   * tile for each key keysOf(person) gives (the person's id; Meet adds one while they present),
   * drawn once by draw(person, key) at the end of host() and removed once the view no longer has
   * it. A tile is its outermost element; its __sim entry names its person and says whether it may
   * show them speaking (canSpeak: never the bot's own), which markSpeaking(entry, on) shows the
   * platform's own way.
   */
  function gallery(host, keysOf, draw, markSpeaking) {
    var tiles = new Map();
    function unmark(tile) {
      markSpeaking(tile.__sim, false);
    }
    return {
      paint: function (people, speaking) {
        var keep = new Set();
        people.forEach(function (p) {
          keysOf(p).forEach(function (key) {
            keep.add(key);
            if (tiles.has(key)) return;
            var tile = draw(p, key);
            tiles.set(key, tile);
            host().appendChild(tile);
          });
        });
        tiles.forEach(function (tile, key) {
          if (keep.has(key)) return;
          unmark(tile);
          tile.remove();
          tiles.delete(key);
        });
        tiles.forEach(function (tile) {
          var entry = tile.__sim;
          markSpeaking(entry, entry.canSpeak && speaking.indexOf(entry.name) >= 0);
        });
      },
      clear: function () {
        tiles.forEach(unmark);
        tiles.clear();
      },
    };
  }

  /*
   * A dropdown as Teams and Zoom draw theirs: a combobox (labelled by the element with id
   * labelId) showing the choice, and in `list`, while open, a listbox of `options`; picking one
   * shows it and calls onPick(option). The caller places box and list in its dialog.
   */
  function dropdown(labelId, options, current, onPick) {
    var C = window.__SIM__.cls;
    var value = h('span', {}, current);
    var list = h('div', {});
    var box = h(
      'button',
      {
        type: 'button',
        role: 'combobox',
        'aria-haspopup': 'listbox',
        'aria-expanded': 'false',
        'aria-labelledby': labelId,
        class: C.btn,
        onclick: function () {
          if (list.firstChild) return close();
          box.setAttribute('aria-expanded', 'true');
          list.appendChild(
            h(
              'div',
              { role: 'listbox', class: C.menu },
              options.map(function (label) {
                return wrap(
                  'control',
                  h(
                    'div',
                    {
                      role: 'option',
                      'aria-selected': String(label === current),
                      class: C.menuItem,
                      onclick: function () {
                        current = label;
                        value.textContent = label;
                        onPick(label);
                        close();
                      },
                    },
                    [h('span', {}, label)],
                  ),
                );
              }),
            ),
          );
        },
      },
      [value, h('span', { 'aria-hidden': 'true' }, '\u2304')],
    );
    function close() {
      list.replaceChildren();
      box.setAttribute('aria-expanded', 'false');
    }
    return { box: wrap('control', box), list: list };
  }

  /* The caption language picked in a client's settings: the simulator is told when it changed. */
  function pickCaptionLanguage(local, language) {
    if (language === local.captionLanguage) return;
    local.captionLanguage = language;
    post('caption-language', { guest: local.guestId, language: language });
  }

  /* A notice over the call for a few seconds ("The host turned off captions"), as the apps show. */
  function toast(text) {
    var el = h('div', { role: 'status', 'aria-live': 'polite', class: window.__SIM__.cls.toast }, text);
    document.body.appendChild(el);
    setTimeout(function () {
      el.remove();
    }, 4000);
  }

  /*
   * A screen no driver knows (MeetingOptions.interstitial), worded as the page load's seed drew it
   * (SIM.interstitial, from INTERSTITIALS in html.ts): a heading, a line, a progress bar, no field
   * and no button. It asks the simulator every 300 ms whether it is still up, and hands over to
   * then() (the pre-join) once it is not.
   */
  function interstitial(root, className, meetingId, then) {
    var words = window.__SIM__.interstitial;
    root.replaceChildren(
      h('div', { class: className }, [
        wrap('control', h('h1', {}, words.heading)),
        h('p', {}, words.line),
        h('div', { role: 'progressbar', 'aria-busy': 'true' }),
      ]),
    );
    (function ask() {
      fetch('/_sim/api/interstitial?id=' + encodeURIComponent(meetingId))
        .then(function (r) {
          return r.json();
        })
        .then(function (answer) {
          if (answer.shown) setTimeout(ask, 300);
          else then();
        })
        .catch(function () {
          setTimeout(ask, 300);
        });
    })();
  }

  /*
   * The moment before a page's first screen is drawn whole, as this page load drew it
   * (SIM.halfDrawn, HALF_DRAWN_CHOICES in html.ts): nothing ('none'); the app's header alone, with
   * its "Sign in" button, before the pre-join form mounts ('signIn'); or the app's default
   * no-access words, shown until the meeting's details arrive ('wall'). Then then() draws the
   * screen, HALF_DRAWN_MS later: a moment too short to be read twice half a second apart.
   */
  var HALF_DRAWN_MS = 250;
  function halfDrawn(root, then) {
    var moment = (window.__SIM__ || {}).halfDrawn || 'none';
    if (moment === 'none') return then();
    root.replaceChildren(
      moment === 'signIn'
        ? h('header', {}, [h('span', {}, 'Meetings'), wrap('control', h('button', { type: 'button' }, 'Sign in'))])
        : h('div', { role: 'alert' }, [wrap('control', h('h1', {}, 'You can\u2019t join this meeting'))]),
    );
    setTimeout(then, HALF_DRAWN_MS);
  }

  return {
    h: h,
    wrap: wrap,
    post: post,
    avatar: avatar,
    media: media,
    client: client,
    state: state,
    connect: connect,
    worded: worded,
    screens: screens,
    gallery: gallery,
    dropdown: dropdown,
    pickCaptionLanguage: pickCaptionLanguage,
    interstitial: interstitial,
    halfDrawn: halfDrawn,
  };
})();
