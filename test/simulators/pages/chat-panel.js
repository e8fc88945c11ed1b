/*
 * The meeting's chat panel as each platform's web client draws it (issue #51; FIELD-NOTES "6.
 * Chat"), shared by the simulated clients: a client puts window.__SIMCHAT__.button(local, platform)
 * in its call toolbar; the button opens the panel in the call screen. The panel follows the
 * meeting's chat over its own event stream (chat.ts) and sends through POST /_sim/api/chat.
 *
 * Drawn per page load (html.ts CHAT_CHOICES): the wording of the button and the compose box, a
 * list redrawn whole on every change or grown by the new rows, and every message kept in the page
 * or only the last few (a virtualized list), drawn as it comes or a little later. Messages of one
 * sender in a row are grouped under one name, as every platform does. The bot's own messages are
 * "You" on Meet, its name elsewhere.
 */
window.__SIMCHAT__ = (function () {
  'use strict';
  var L = window.__SIMLIB__;
  var SIM = window.__SIM__ || {};
  var h = L.h;
  var RECENT = 6;
  var wording = String(SIM.chatWording || 'a');
  var pick = function (ways) {
    return ways[wording.charCodeAt(0) - 97] || ways[0];
  };
  /* Obfuscated class names that change per page load, as Meet's and Teams' builds do. */
  var cls = function (role) {
    var n = (SIM.seed >>> 0) ^ 0x2545f491;
    for (var i = 0; i < role.length; i++) n = Math.imul(n ^ role.charCodeAt(i), 16777619) >>> 0;
    return 'c' + n.toString(36).slice(0, 5);
  };
  var WORDS = {
    google_meet: {
      button: [
        ['Chat with everyone', null],
        ['Chat', null],
        ['Chat with everyone', 'chat'],
      ],
      compose: [
        { 'aria-label': 'Send a message' },
        { placeholder: 'Send a message' },
        { 'aria-label': 'Send a message to everyone', placeholder: 'Send a message' },
      ],
    },
    teams: {
      button: [
        ['Chat', null],
        ['Show conversation', null],
        ['Chat', 'Chat'],
      ],
      compose: [
        { tag: 'div', 'aria-label': 'Type a message' },
        { tag: 'textarea', placeholder: 'Type a message' },
        { tag: 'div', 'aria-label': 'Type a new message' },
      ],
    },
    zoom: {
      button: [
        ['open the chat panel', null],
        [null, 'Chat'],
        ['open the chat panel', 'Chat'],
      ],
      compose: [{}, {}, {}],
    },
  };

  function timeOf(iso) {
    var d = new Date(iso);
    var hours = d.getHours() % 12 || 12;
    var minutes = String(d.getMinutes()).padStart(2, '0');
    return hours + ':' + minutes + ' ' + (d.getHours() < 12 ? 'AM' : 'PM');
  }

  function button(local, platform) {
    var words = pick(WORDS[platform].button);
    var state = { local: local, platform: platform, open: false, panel: null, list: null, source: null, drawn: [] };
    var attrs = { type: 'button', class: cls('chatButton'), onclick: toggle };
    if (words[0]) attrs['aria-label'] = words[0];
    if (platform === 'teams') attrs.id = 'chat-button';
    var kids =
      platform === 'google_meet'
        ? [h('i', { 'aria-hidden': 'true' }, 'chat')].concat(words[1] ? [h('span', {}, words[1])] : [])
        : [h('span', {}, words[1] || 'Chat')];
    var el = h('button', attrs, kids);
    state.button = el;
    function toggle(e) {
      if (e) e.stopPropagation();
      if (state.open) close(state);
      else open(state);
    }
    return el;
  }

  function open(state) {
    var call = state.button.closest('#' + SIM.rootId + ' > *') || document.body;
    state.open = true;
    if (state.platform === 'zoom' && state.button.getAttribute('aria-label'))
      state.button.setAttribute('aria-label', 'close the chat panel');
    if (state.platform === 'teams') state.button.setAttribute('aria-pressed', 'true');
    state.panel = drawPanel(state);
    call.appendChild(state.panel);
    state.drawn = [];
    state.source = new EventSource('/_sim/api/chat-events?guest=' + encodeURIComponent(state.local.guestId));
    state.source.onmessage = function (event) {
      var data = JSON.parse(event.data);
      if (!state.open) return;
      allow(state, data.allowed !== false);
      // 'late': drawn a few hundred ms after it came, the newest list winning.
      if (SIM.chatTiming !== 'late') return paint(state, data.messages);
      clearTimeout(state.late);
      state.late = setTimeout(
        function () {
          if (state.open) paint(state, data.messages);
        },
        200 + (SIM.seed % 400),
      );
    };
  }

  /* The host turned the chat off: the compose box gives way to the platform's note, as real builds show it. */
  function allow(state, allowed) {
    if (state.allowed === allowed) return;
    state.allowed = allowed;
    var note = {
      google_meet: 'The host has turned off chat for participants',
      teams: 'The organizer has disabled chat for attendees',
      zoom: 'Chat has been disabled by the host',
    }[state.platform];
    if (!allowed) state.box.replaceWith((state.note = h('p', { role: 'note' }, note)));
    else if (state.note) state.note.replaceWith(state.box);
  }

  function close(state) {
    state.open = false;
    if (state.source) state.source.close();
    if (state.panel) state.panel.remove();
    state.panel = null;
    if (state.platform === 'zoom' && state.button.getAttribute('aria-label'))
      state.button.setAttribute('aria-label', 'open the chat panel');
    if (state.platform === 'teams') state.button.setAttribute('aria-pressed', 'false');
  }

  function drawPanel(state) {
    var p = state.platform;
    var list =
      p === 'zoom'
        ? h('div', { 'aria-label': 'Chat Message List', role: 'application', class: 'chat-virtuoso-wrapper' })
        : p === 'teams'
          ? h('ul', { 'data-tid': 'chat-pane-list', class: cls('list') })
          : h('div', { 'aria-live': 'polite', class: cls('list') });
    state.list = list;
    var compose = composeBox(state);
    var send = sendButton(state, compose);
    var box =
      p === 'zoom'
        ? h('div', { class: 'chat-rtf-box__editor-outer' }, [compose, send])
        : L.wrap('control', h('div', { class: cls('compose') }, [compose, send]));
    state.box = box;
    state.allowed = true;
    var heading = p === 'google_meet' ? 'In-call messages' : p === 'teams' ? 'Meeting chat' : 'Chat';
    var attrs =
      p === 'google_meet'
        ? { 'aria-label': 'Side panel', class: cls('side'), style: 'position:fixed;right:0;top:0;width:320px' }
        : { class: cls('side'), style: 'position:fixed;right:0;top:0;width:320px' };
    return h(p === 'google_meet' ? 'aside' : 'div', attrs, [h('h2', {}, heading), L.wrap('list', list), box]);
  }

  function composeBox(state) {
    var spec = pick(WORDS[state.platform].compose);
    var el;
    if (state.platform === 'zoom') {
      el = h('div', { contenteditable: 'true', class: 'tiptap ProseMirror', role: 'textbox', translate: 'no' });
    } else if (state.platform === 'teams' && spec.tag === 'div') {
      el = h('div', {
        contenteditable: 'true',
        role: 'textbox',
        'aria-label': spec['aria-label'],
        class: cls('editor'),
      });
    } else {
      var attrs = { class: cls('input'), rows: '1' };
      Object.keys(spec).forEach(function (k) {
        if (k !== 'tag') attrs[k] = spec[k];
      });
      el = h('textarea', attrs);
    }
    el.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        submit(state, el);
      }
    });
    return el;
  }

  function valueOf(el) {
    return el.tagName === 'TEXTAREA' ? el.value : el.textContent;
  }

  function sendButton(state, compose) {
    var p = state.platform;
    var attrs = { type: 'button', class: cls('send') };
    if (p === 'zoom') attrs['aria-label'] = 'send';
    if (p === 'teams') attrs['aria-label'] = 'Send';
    if (p === 'google_meet' && wording !== 'b') attrs['aria-label'] = 'Send a message';
    var el = h(
      'button',
      attrs,
      p === 'google_meet' ? [h('i', { 'aria-hidden': 'true' }, 'send')] : [h('span', {}, p === 'zoom' ? '' : 'Send')],
    );
    el.addEventListener('click', function () {
      submit(state, compose);
    });
    // Meet's send button is disabled while there is nothing to send.
    if (p === 'google_meet') {
      el.disabled = true;
      compose.addEventListener('input', function () {
        el.disabled = !valueOf(compose).trim();
      });
    }
    return el;
  }

  function submit(state, compose) {
    var text = valueOf(compose).trim();
    if (!text) return;
    if (compose.tagName === 'TEXTAREA') compose.value = '';
    else compose.textContent = '';
    compose.dispatchEvent(new Event('input', { bubbles: true }));
    L.post('chat', { guest: state.local.guestId, text: text });
  }

  /* Runs of one sender's messages, each run under one name. */
  function runs(messages) {
    var out = [];
    messages.forEach(function (m) {
      var last = out[out.length - 1];
      if (last && last.sender === m.sender && last.fromGuest === m.fromGuest) last.messages.push(m);
      else out.push({ sender: m.sender, fromGuest: m.fromGuest, messages: [m] });
    });
    return out;
  }

  function senderShown(state, run) {
    if (run.fromGuest && run.fromGuest === state.local.guestId && state.platform === 'google_meet') return 'You';
    return run.sender;
  }

  function paint(state, messages) {
    var shown = SIM.chatWindow === 'recent' ? messages.slice(-RECENT) : messages;
    // 'append' grows the list by the new rows while nothing scrolled out; else it is drawn again whole.
    var appendable =
      SIM.chatRender === 'append' &&
      SIM.chatWindow !== 'recent' &&
      state.drawn.length <= shown.length &&
      state.drawn.every(function (m, i) {
        return shown[i].id === m.id;
      });
    if (!appendable) {
      state.list.replaceChildren();
      state.drawn = [];
    }
    var from = state.drawn.length;
    var all = runs(shown);
    var index = 0;
    all.forEach(function (run) {
      var start = index;
      index += run.messages.length;
      if (index <= from) return;
      drawRun(state, run, Math.max(0, from - start), start === 0 ? 0 : start);
    });
    state.drawn = shown.slice();
  }

  /* Draws the messages of `run` from its `skip`th on (the rest are drawn already). */
  function drawRun(state, run, skip) {
    var p = state.platform;
    var name = senderShown(state, run);
    if (p === 'google_meet') {
      // One group per run: a header with the name and time, then each message (with its pin overlay).
      var group = skip > 0 ? state.list.lastChild : null;
      var body;
      if (!group) {
        body = h('div', { class: cls('body') });
        group = L.wrap(
          'block',
          h('div', { class: cls('group') }, [
            h('div', { class: cls('head') }, [
              h('div', { class: cls('sender') }, name),
              h('div', { class: cls('time') }, timeOf(run.messages[0].at)),
            ]),
            body,
          ]),
        );
        state.list.appendChild(group);
      } else body = group.querySelector('.' + cls('body'));
      run.messages.slice(skip).forEach(function (m) {
        var id = 'spaces/' + SIM.meetingId + '/messages/' + m.id;
        body.appendChild(
          h('div', { class: cls('message'), 'data-message-id': id }, [
            h('div', { class: cls('text') }, m.text),
            h('button', { type: 'button', 'aria-label': 'Pin message', 'data-message-id': id }, [
              h('i', { 'aria-hidden': 'true' }, 'keep'),
            ]),
          ]),
        );
      });
      return;
    }
    run.messages.forEach(function (m, i) {
      if (i < skip) return;
      var first = i === 0;
      if (p === 'teams') {
        state.list.appendChild(
          h('li', { 'data-tid': 'chat-pane-item', class: cls('item') }, [
            h('div', { 'data-tid': 'chat-pane-message', class: cls('message') }, [
              first ? h('span', { 'data-tid': 'message-author-name' }, name) : null,
              h('time', { datetime: m.at }, timeOf(m.at)),
              h('div', { id: 'content-' + m.id }, [h('p', {}, m.text)]),
            ]),
          ]),
        );
      } else {
        var label =
          wording === 'b'
            ? name + ' to Everyone, ' + timeOf(m.at) + ', ' + m.text
            : name + ' said to Everyone at ' + timeOf(m.at) + ': ' + m.text;
        state.list.appendChild(
          h('div', { id: 'chat-message-' + m.id, class: 'new-chat-message__container', 'aria-label': label }, [
            first ? h('div', { class: 'chat-item__sender' }, name) : null,
            h('div', { class: 'chat-rtf-box__display' }, m.text),
          ]),
        );
      }
    });
  }

  return { button: button };
})();
