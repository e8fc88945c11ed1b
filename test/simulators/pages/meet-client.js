/*
 * Simulated Google Meet client. Screens and texts follow the real app: the pre-join screen, the
 * lobby, the call (tiles, toolbar, captions region with one block per turn rewritten in place) and
 * the end screens. Everything it shows comes from the simulator's event stream.
 */
(function () {
  'use strict';
  var SIM = window.__SIM__;
  var C = SIM.cls;
  var O = SIM.options || {};
  var L = window.__SIMLIB__;
  var h = L.h;
  var wrap = L.wrap;
  var root = document.getElementById('yDmH0d');
  var local = { micOn: true, camOn: true, guestId: null, screen: null, captionsOn: false, dialogDone: false,
    blocks: new Map(), tiles: new Map(), ui: null, lastView: null, source: null };
  var media = L.media(local);

  var END_SCREENS = {
    denied: ['You can\u2019t join this call', 'Someone in the call denied your request to join'],
    no_response: ['You can\u2019t join this call', 'No one responded to your request to join the call'],
    removed: ['You\u2019ve been removed from the meeting', ''],
    ended: ['Your host ended the meeting for everyone', ''],
    left: ['You left the meeting', ''],
    not_found: ['Check your meeting code', 'Make sure you entered the correct meeting code in the URL, for example: https://meet.google.com/xxx-yyyy-zzz'],
    invalid: ['Invalid video call name.', ''],
    cannot_join: ['You can\u2019t join this video call', 'You can\u2019t join this video call because you aren\u2019t allowed in'],
  };

  function icon(name) { return h('i', { class: C.icon + ' google-material-icons', 'aria-hidden': 'true' }, name); }
  function button(label, attrs) {
    return h('button', Object.assign({ class: C.btn, type: 'button' }, attrs || {}), [h('span', { class: C.btnLabel }, label)]);
  }
  function typing(event) {
    var t = event.target;
    return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable);
  }

  // ---- pre-join

  function renderPrejoin() {
    var video = h('video', { class: C.video, autoplay: true, muted: true, playsinline: true });
    var mic = h('div', { role: 'button', tabindex: '0', class: C.round }, [icon('mic')]);
    var cam = h('div', { role: 'button', tabindex: '0', class: C.round }, [icon('videocam')]);
    var name = h('input', { type: 'text', class: C.input, 'aria-label': 'Your name', placeholder: 'Your name', maxlength: '60', autocomplete: 'off' });
    var join = button(O.lobby === false ? 'Join now' : 'Ask to join', { class: C.btn + ' ' + C.primary, disabled: true });
    function paint() {
      mic.setAttribute('aria-label', (local.micOn ? 'Turn off' : 'Turn on') + ' microphone (ctrl + d)');
      mic.setAttribute('data-is-muted', String(!local.micOn));
      mic.firstChild.textContent = local.micOn ? 'mic' : 'mic_off';
      cam.setAttribute('aria-label', (local.camOn ? 'Turn off' : 'Turn on') + ' camera (ctrl + e)');
      cam.setAttribute('data-is-muted', String(!local.camOn));
      cam.firstChild.textContent = local.camOn ? 'videocam' : 'videocam_off';
    }
    function toggleMic() { local.micOn = !local.micOn; media.apply(); paint(); }
    function toggleCam() { local.camOn = !local.camOn; if (local.camOn) media.start(video); else media.apply(); paint(); }
    mic.addEventListener('click', toggleMic);
    cam.addEventListener('click', toggleCam);
    document.addEventListener('keydown', function (e) {
      if (local.screen || !e.ctrlKey) return;
      if (e.key === 'd') { e.preventDefault(); toggleMic(); }
      if (e.key === 'e') { e.preventDefault(); toggleCam(); }
    });
    name.addEventListener('input', function () { join.disabled = !name.value.trim(); });
    join.addEventListener('click', function () {
      if (join.disabled) return;
      join.disabled = true;
      askToJoin(name.value.trim());
    });
    root.replaceChildren(h('div', { class: C.prejoin }, [
      h('div', { class: C.preview }, [video, h('div', { class: C.previewBar }, [wrap('control', mic), wrap('control', cam)])]),
      h('div', { class: C.side }, [
        h('h1', { class: C.title }, 'What\u2019s your name?'),
        wrap('control', name),
        h('div', { class: C.actions }, [wrap('control', join), button('Other ways to join')]),
      ]),
    ]));
    paint();
    media.start(video);
  }

  function askToJoin(name) {
    if (O.prejoinDialog && O.prejoinDialog !== 'none' && !local.dialogDone) return confirmFirst(name);
    L.post('join', { meetingId: SIM.meetingId, platform: 'google_meet', name: name, micOn: local.micOn, camOn: local.camOn, hl: SIM.hl })
      .then(function (r) {
        local.guestId = r.guestId;
        local.source = L.connect(r.guestId, render);
      });
  }

  function confirmFirst(name) {
    var recording = O.prejoinDialog === 'recording';
    var scrim = h('div', { class: C.scrim }, [h('div', { role: 'dialog', 'aria-modal': 'true', class: C.dialog }, [
      h('h2', { class: C.dialogTitle }, recording ? 'This video call is being recorded' : 'Others may not see or hear you'),
      h('p', { class: C.dialogText }, recording ? 'By joining, you\u2019re consenting to this call being recorded.' : 'Your camera and microphone are off.'),
      h('div', { class: C.actions }, [
        button(recording ? 'Leave meeting' : 'Cancel', { onclick: function () { location.href = '/'; } }),
        button(recording ? 'Join now' : 'Join anyway', { class: C.btn + ' ' + C.primary, onclick: function () {
          scrim.remove();
          local.dialogDone = true;
          askToJoin(name);
        } }),
      ]),
    ])]);
    document.body.appendChild(scrim);
  }

  // ---- screens driven by the simulator

  var render = L.screens(local, media, {
    reset: function () { local.blocks.clear(); local.tiles.clear(); },
    lobby: function () { renderLobby(); },
    call: function () { renderCall(); },
    end: function (terminal) { renderEnd(terminal); },
    paint: function (view) { paintTiles(view.participants); paintCaptions(view.captions); },
  });

  function renderLobby() {
    root.replaceChildren(h('div', { class: C.prejoin }, [
      h('div', { class: C.preview }, [h('div', { class: C.videoOff }, 'Camera is off')]),
      h('div', { class: C.side }, [
        wrap('control', h('div', { class: C.title, role: 'status' }, 'Asking to be let in\u2026')),
        h('div', { class: C.subtitle }, 'You\u2019ll join the call when someone lets you in'),
        h('div', { class: C.actions }, [button('Return to home screen', { onclick: function () {
          L.post('leave', { guest: local.guestId }).then(function () { location.href = '/'; });
        } })]),
      ]),
    ]));
  }

  function renderEnd(kind) {
    var text = END_SCREENS[kind] || ['', ''];
    root.replaceChildren(h('div', { class: C.end }, [
      wrap('control', h('h1', { class: C.title }, text[0])),
      text[1] ? wrap('control', h('div', { class: C.subtitle }, text[1])) : null,
      h('div', { class: C.actions }, [
        kind === 'removed' || kind === 'left' ? button('Rejoin') : null,
        button('Return to home screen', { onclick: function () { location.href = '/'; } }),
      ]),
    ]));
  }

  // ---- the call

  function renderCall() {
    media.stop();
    var grid = h('div', { class: C.grid });
    var captionsHost = h('div', { class: C.captionsHost });
    var count = h('div', { class: C.badge }, '1');
    var cc = O.captionsButton === false || O.captionsAvailable === false ? null
      : h('button', { class: C.ctl, type: 'button', onclick: function () { setCaptions(!local.captionsOn); } }, [icon('closed_caption_off')]);
    var leave = h('button', { class: C.ctl + ' ' + C.danger, type: 'button', 'aria-label': 'Leave call', onclick: function () {
      L.post('leave', { guest: local.guestId });
    } }, [icon('call_end')]);
    root.replaceChildren(h('div', { class: C.call }, [
      grid,
      captionsHost,
      h('div', { class: C.bar }, [
        h('div', { class: C.clock }, SIM.code),
        h('button', { class: C.ctl, type: 'button', 'aria-label': 'Turn on microphone', 'data-is-muted': 'true' }, [icon('mic_off')]),
        h('button', { class: C.ctl, type: 'button', 'aria-label': 'Turn on camera', 'data-is-muted': 'true' }, [icon('videocam_off')]),
        cc,
        h('button', { class: C.ctl, type: 'button', 'aria-label': 'More options' }, [icon('more_vert')]),
        leave,
        h('button', { class: C.ctl, type: 'button', 'aria-label': 'People' }, [icon('people'), count]),
      ].map(function (control) { return control && wrap('control', control); })),
    ]));
    local.ui = { grid: grid, captionsHost: captionsHost, cc: cc, count: count, list: null, region: null, regionOuter: null };
    paintCaptionsButton();
    if (O.gotItPopup) {
      var popup = h('div', { class: C.scrim }, [h('div', { role: 'dialog', 'aria-modal': 'true', class: C.dialog }, [
        h('h2', { class: C.dialogTitle }, 'Others may see your video differently'),
        h('p', { class: C.dialogText }, 'Your video might look different to others.'),
        h('div', { class: C.actions }, [button('Got it', { class: C.btn + ' ' + C.primary, onclick: function () { popup.remove(); } })]),
      ])]);
      document.body.appendChild(popup);
    }
  }

  document.addEventListener('keydown', function (e) {
    if (local.screen !== 'in_call' || typing(e) || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.key === 'c' && O.captionsAvailable !== false) setCaptions(!local.captionsOn);
  });

  function paintCaptionsButton() {
    var cc = local.ui && local.ui.cc;
    if (!cc) return;
    cc.setAttribute('aria-label', local.captionsOn ? 'Turn off captions' : 'Turn on captions');
    cc.setAttribute('aria-pressed', String(local.captionsOn));
    cc.firstChild.textContent = local.captionsOn ? 'closed_caption' : 'closed_caption_off';
  }

  function setCaptions(on) {
    local.captionsOn = on;
    var ui = local.ui;
    if (on && !ui.region) {
      ui.list = h('div', { class: C.capList });
      ui.region = h('div', { role: 'region', 'aria-label': 'Captions', tabindex: '0', class: C.capRegion }, [wrap('list', ui.list)]);
      ui.regionOuter = wrap('region', ui.region);
      ui.captionsHost.appendChild(ui.regionOuter);
    }
    if (!on && ui.region) {
      ui.regionOuter.remove();
      ui.region = ui.regionOuter = ui.list = null;
      local.blocks.clear();
    }
    paintCaptionsButton();
    L.post('captions', { guest: local.guestId, on: on });
    if (on && local.lastView) paintCaptions(local.lastView.captions);
  }

  function paintTiles(people) {
    var keep = new Set();
    people.forEach(function (p) {
      keep.add(p.id);
      if (local.tiles.has(p.id)) return;
      var name = h('div', { class: C.tileName, 'data-self-name': p.self ? 'You' : null }, [wrap('tileName', h('span', { class: 'notranslate' }, p.name))]);
      var tile = wrap('tile', h('div', { class: C.tile, 'data-participant-id': 'spaces/' + SIM.space + '/devices/' + p.id,
        'data-requested-participant-id': 'spaces/' + SIM.space + '/devices/' + p.id }, [
        h('div', { class: C.tileMedia }, [wrap('tileAvatar', h('img', { class: C.tileAvatar, src: L.avatar(p.name), alt: '' }))]),
        h('div', { class: C.tileBar }, [icon('mic_off'), wrap('tileName', name)]),
      ]));
      local.tiles.set(p.id, tile);
      local.ui.grid.appendChild(tile);
    });
    local.tiles.forEach(function (tile, id) {
      if (!keep.has(id)) { tile.remove(); local.tiles.delete(id); }
    });
    local.ui.count.textContent = String(people.length);
  }

  function paintCaptions(blocks) {
    var list = local.ui && local.ui.list;
    if (!list) return;
    var keep = new Set();
    blocks.forEach(function (b) {
      keep.add(b.id);
      var entry = local.blocks.get(b.id);
      if (!entry && O.captionMarkup === 'unreadable') {
        // A structure no reader knows: the speaker and the words in one line, no avatar.
        var line = h('div', { class: C.capText });
        entry = { el: wrap('block', h('div', { class: C.capBlock }, [line])), text: line, speaker: b.speaker };
        local.blocks.set(b.id, entry);
        list.appendChild(entry.el);
      }
      if (entry && entry.speaker) {
        var said = entry.speaker + ': ' + b.text;
        if (entry.text.textContent !== said) entry.text.textContent = said;
        return;
      }
      if (!entry) {
        var text = h('div', { class: C.capText });
        var el = wrap('block', h('div', { class: C.capBlock }, [
          wrap('head', h('div', { class: C.capHead }, [
            wrap('avatar', h('img', { class: C.capAvatar, src: L.avatar(b.speaker), alt: '' })),
            wrap('name', h('div', { class: C.capName }, [h('span', {}, b.speaker)])),
          ])),
          wrap('text', text),
        ]));
        entry = { el: el, text: text };
        local.blocks.set(b.id, entry);
        list.appendChild(el);
      }
      // Meet rewrites the text of a block in place rather than adding nodes.
      if (entry.text.textContent !== b.text) entry.text.textContent = b.text;
    });
    local.blocks.forEach(function (entry, id) {
      if (!keep.has(id)) { entry.el.remove(); local.blocks.delete(id); }
    });
  }

  if (SIM.screen) renderEnd(SIM.screen);
  else renderPrejoin();
})();
