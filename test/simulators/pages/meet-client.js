/*
 * Simulated Google Meet client. Screens and texts follow the real app: the pre-join screen, the
 * lobby, the call (tiles, toolbar, captions region with one block per turn rewritten in place) and
 * the end screens. Everything it shows comes from the simulator's event stream.
 */
window.__SIMLIB__.client(function (L, SIM, C, root) {
  'use strict';
  var h = L.h;
  var wrap = L.wrap;
  var O = SIM.options || {};
  // blocks: the caption blocks shown, by id; dialogDone: the pre-join dialog was answered.
  var local = L.state({ blocks: new Map(), dialogDone: false });
  var media = L.media(local);

  /*
   * The end screens and the lobby, a heading and a line each, in the wording this page load drew
   * (SIM.screenWording): the best-known sentences, and for some the same screen in other words, as
   * other builds and locales word it: what a driver knowing only the first must still tell apart
   * by its meaning.
   */
  var SCREEN_WORDS = L.worded(SIM.screenWording, {
    denied: [
      ['You can\u2019t join this call', 'Someone in the call denied your request to join'],
      ['You can\u2019t join this call', ''],
    ],
    no_response: [['You can\u2019t join this call', 'No one responded to your request to join the call']],
    removed: [
      ['You\u2019ve been removed from the meeting', ''],
      ['Someone removed you from the call', ''],
      ['You were removed from the meeting', 'You can\u2019t rejoin this meeting'],
      ['You can\u2019t rejoin this meeting', ''],
    ],
    ended: [
      ['Your host ended the meeting for everyone', ''],
      ['The host ended the call for everyone', 'Thanks for joining.'],
      ['The meeting has ended', ''],
      ['The host has ended the meeting', ''],
    ],
    left: [['You left the meeting', '']],
    not_found: [
      [
        'Check your meeting code',
        'Make sure you entered the correct meeting code in the URL, for example: https://meet.google.com/xxx-yyyy-zzz',
      ],
      ['This video call doesn\u2019t exist', 'Check the link you were sent, or ask the organizer for a new one.'],
      ['Your meeting code has expired', 'Ask the organizer for a new link.'],
      ['The meeting code you entered doesn\u2019t work', 'Check the code and try again.'],
    ],
    invalid: [
      ['Invalid video call name.', ''],
      ['This meeting code is not valid.', ''],
      ['The meeting code you entered doesn\u2019t work', ''],
    ],
  });

  /*
   * The asking screen in the wording this page load drew (SIM.lobbyWording): the best-known lines
   * (a typographic apostrophe in "You\u2019ll"), the others builds have shown, and one that says
   * the same in other words. Its "Return to home screen" button is there on every one.
   */
  var LOBBY_WORDS = {
    asking: ['Asking to be let in\u2026', 'You\u2019ll join the call when someone lets you in'],
    pleaseWait: ['Asking to be let in\u2026', 'Please wait until a meeting host brings you into the call'],
    waitingHost: ['Waiting for the host to let you in', ''],
    hostJoin: ['Waiting for the host to join', 'You\u2019ll join as soon as the host arrives'],
    meaning: ['Waiting to be let in\u2026', 'Someone in the call will admit you soon'],
  }[SIM.lobbyWording] || ['Asking to be let in\u2026', ''];

  /*
   * The call's microphone button: a button or a div[role=button] (the field notes' Meet 7), its
   * label with the shortcut hint or without (SIM.micWording); the call hears the bot while it is on
   * (call-microphone.js).
   */
  function callMicButton() {
    var hint = SIM.micWording === 'shortcut' ? ' (ctrl + d)' : '';
    var el =
      SIM.controlElement === 'div'
        ? h('div', { class: C.ctl, role: 'button', tabindex: '0' }, [icon('mic_off')])
        : h('button', { class: C.ctl, type: 'button' }, [icon('mic_off')]);
    local.mic = local.mic || L.callMicrophone(local);
    return local.mic.button(el, { on: ['Turn off microphone' + hint, null], off: ['Turn on microphone' + hint, null] });
  }
  function icon(name) {
    return h('i', { class: C.icon + ' google-material-icons', 'aria-hidden': 'true' }, name);
  }
  /** The red "Leave call" button: the call's toolbar and, on some builds, the lobby's. */
  function leaveButton() {
    return h(
      'button',
      {
        class: C.ctl + ' ' + C.danger,
        type: 'button',
        'aria-label': 'Leave call',
        onclick: function () {
          L.post('leave', { guest: local.guestId });
        },
      },
      [icon('call_end')],
    );
  }
  function button(label, attrs) {
    return h('button', Object.assign({ class: C.btn, type: 'button' }, attrs || {}), [
      h('span', { class: C.btnLabel }, label),
    ]);
  }
  function typing(event) {
    var t = event.target;
    return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable);
  }

  // ---- pre-join

  /*
   * The name field as this page load drew it (SIM.nameField): aria-label "Your name"; a jsname and
   * no label at all; inside a div[jscontroller], labelled by the screen's heading; a placeholder
   * only; or labelled in the page's own language (Hungarian "A neved").
   */
  var HEADING_ID = 'prejoin-heading-' + SIM.seed;
  var NAME_FIELDS = {
    ariaLabel: { 'aria-label': 'Your name', placeholder: 'Your name' },
    jsname: { jsname: 'YPqjbf' },
    jscontroller: { jsname: 'YPqjbf', 'aria-labelledby': HEADING_ID },
    placeholder: { placeholder: 'Your name' },
    localized: { 'aria-label': 'A neved', placeholder: 'A neved' },
  };
  function nameField() {
    var input = h(
      'input',
      Object.assign(
        { type: 'text', class: C.input, maxlength: '60', autocomplete: 'off' },
        NAME_FIELDS[SIM.nameField] || NAME_FIELDS.ariaLabel,
      ),
    );
    return SIM.nameField === 'jscontroller'
      ? h('div', { jscontroller: 'Z2Tsp', jsaction: 'input:YPqjbf' }, [input])
      : input;
  }

  /* The join button's words as builds have worded it: asked (a lobby) or not, after a warning, "the call now". */
  var JOIN_WORDS = {
    plain: ['Ask to join', 'Join now'],
    anyway: ['Ask to join anyway', 'Join anyway'],
    callNow: ['Ask to join', 'Join the call now'],
  };
  function joinLabels(account) {
    if (account) return SIM.signedInJoin === 'otherDevice' ? ['Switch here', 'Join here too'] : ['Join now'];
    return [(JOIN_WORDS[SIM.joinWording] || JOIN_WORDS.plain)[O.lobby === false ? 1 : 0]];
  }

  /* A control as this page load draws them (SIM.controlElement): a button, or a div[role=button]. */
  function control(label, attrs) {
    var el =
      SIM.controlElement === 'div'
        ? h(
            'div',
            Object.assign({ role: 'button', tabindex: '0', class: C.btn }, attrs || {}),
            label === null ? [] : [h('span', { class: C.btnLabel }, label)],
          )
        : button(label, attrs);
    return el;
  }
  function setDisabled(el, off) {
    if (el.tagName === 'BUTTON') el.disabled = off;
    el.setAttribute('aria-disabled', String(off));
  }
  function isDisabled(el) {
    return el.getAttribute('aria-disabled') === 'true';
  }

  function renderPrejoin() {
    var video = h('video', { class: C.video, autoplay: true, muted: true, playsinline: true });
    var mic = control(null, { class: C.round });
    var cam = control(null, { class: C.round });
    mic.replaceChildren(icon('mic'));
    cam.replaceChildren(icon('videocam'));
    var account = SIM.account;
    // Signed in, Meet asks for no name: it shows the account's, and the join button is ready at once.
    var field = account ? null : nameField();
    var name = field && (field.tagName === 'INPUT' ? field : field.querySelector('input'));
    var joins = joinLabels(account).map(function (label) {
      return control(label, { class: C.btn + ' ' + C.primary });
    });
    joins.forEach(function (join) {
      setDisabled(join, !account);
    });
    function paint() {
      mic.setAttribute('aria-label', (local.micOn ? 'Turn off' : 'Turn on') + ' microphone (ctrl + d)');
      mic.setAttribute('data-is-muted', String(!local.micOn));
      mic.firstChild.textContent = local.micOn ? 'mic' : 'mic_off';
      cam.setAttribute('aria-label', (local.camOn ? 'Turn off' : 'Turn on') + ' camera (ctrl + e)');
      cam.setAttribute('data-is-muted', String(!local.camOn));
      cam.firstChild.textContent = local.camOn ? 'videocam' : 'videocam_off';
    }
    local.paintToggles = paint;
    function toggleMic() {
      local.micOn = !local.micOn;
      media.apply();
      paint();
    }
    function toggleCam() {
      local.camOn = !local.camOn;
      if (local.camOn) media.start(video);
      else media.apply();
      paint();
    }
    mic.addEventListener('click', toggleMic);
    cam.addEventListener('click', toggleCam);
    document.addEventListener('keydown', function (e) {
      if (local.screen || !e.ctrlKey) return;
      if (e.key === 'd') {
        e.preventDefault();
        toggleMic();
      }
      if (e.key === 'e') {
        e.preventDefault();
        toggleCam();
      }
    });
    if (name)
      name.addEventListener('input', function () {
        joins.forEach(function (join) {
          setDisabled(join, !name.value.trim());
        });
      });
    joins.forEach(function (join) {
      join.addEventListener('click', function () {
        // A modal pop-up over the pre-join takes the click, as its scrim would.
        if (isDisabled(join) || local.modalUp) return;
        joins.forEach(function (other) {
          setDisabled(other, true);
        });
        askToJoin(account ? account.name : name.value.trim());
      });
    });
    var otherWays = control('Other ways to join');
    var actions = joins.map(function (join) {
      return wrap('control', join);
    });
    if (SIM.otherWays === 'before') actions.unshift(otherWays);
    else actions.push(otherWays);
    root.replaceChildren(
      accountBar(account),
      h('div', { class: C.prejoin }, [
        h('div', { class: C.preview }, [
          video,
          h('div', { class: C.previewBar }, [wrap('control', mic), wrap('control', cam)]),
          effects(),
        ]),
        h('div', { class: C.side }, [
          h(
            'h1',
            { class: C.title, id: HEADING_ID },
            account
              ? SIM.signedInJoin === 'otherDevice'
                ? 'You\u2019re in this call on another device'
                : 'Ready to join?'
              : 'What\u2019s your name?',
          ),
          account
            ? h('div', { class: C.subtitle }, ['Joining as ', h('span', {}, account.name)])
            : wrap('control', field),
          h('div', { class: C.actions }, actions),
        ]),
      ]),
    );
    paint();
    media.start(video);
    if (PREJOIN_POPUPS[SIM.prejoinPopup]) setTimeout(prejoinPopup, 100 + (SIM.seed % 700));
  }

  /*
   * A dialog over the pre-join as this page load drew it (SIM.prejoinPopup), some time after the
   * screen: devices refused (English, German: its second button turns microphone and camera
   * off), a sign-in offer whose "Sign in" leads to Google's sign-in page ("Use without an account"
   * stays a guest), or a tip with a div[role=button] "Dismiss". A modal one takes the join click
   * until answered.
   */
  var PREJOIN_POPUPS = {
    noDevices: {
      modal: true,
      title: 'Do you want people to see and hear you in the meeting?',
      text: 'You can still turn on your microphone and camera anytime in the meeting.',
      buttons: [
        ['Allow microphone and camera', 'close'],
        ['Continue without microphone and camera', 'noDevices'],
      ],
    },
    noDevicesGerman: {
      modal: true,
      title: 'M\u00f6chten Sie, dass andere Sie in der Besprechung sehen und h\u00f6ren?',
      text: 'Sie k\u00f6nnen Mikrofon und Kamera jederzeit einschalten.',
      buttons: [
        ['Mikrofon und Kamera zulassen', 'close'],
        ['Ohne Mikrofon und Kamera fortfahren', 'noDevices'],
      ],
    },
    noAccount: {
      modal: true,
      title: 'Get the most out of Google Meet',
      text: 'Sign in to your Google Account to join meetings faster.',
      buttons: [
        ['Sign in', 'signIn'],
        ['Use without an account', 'close'],
      ],
    },
    dismiss: {
      modal: false,
      title: 'Try the new layouts',
      text: 'Pin people and change the tile size from the More options menu.',
      buttons: [['Dismiss', 'close']],
    },
  };
  function prejoinPopup() {
    var popup = PREJOIN_POPUPS[SIM.prejoinPopup];
    if (local.screen) return;
    local.modalUp = popup.modal;
    var box = h('div', { role: 'dialog', 'aria-modal': popup.modal ? 'true' : null, class: C.dialog }, [
      h('h2', { class: C.dialogTitle }, popup.title),
      h('p', { class: C.dialogText }, popup.text),
      h(
        'div',
        { class: C.actions },
        popup.buttons.map(function (b) {
          var answer = function () {
            el.remove();
            local.modalUp = false;
            if (b[1] === 'signIn') location.href = 'https://accounts.google.com/';
            if (b[1] === 'noDevices') {
              local.micOn = local.camOn = false;
              media.apply();
              local.paintToggles();
            }
          };
          // The tip's Dismiss is a div[role=button], as Meet draws it.
          return b[0] === 'Dismiss'
            ? h('div', { role: 'button', tabindex: '0', class: C.btn, onclick: answer }, [h('span', {}, b[0])])
            : button(b[0], {
                class: C.btn + (b[1] === 'close' || b[1] === 'noDevices' ? '' : ' ' + C.primary),
                onclick: answer,
              });
        }),
      ),
    ]);
    var el = popup.modal ? h('div', { class: C.scrim }, [box]) : box;
    document.body.appendChild(el);
  }

  /* Google's account button, top right on every signed-in page: its label names the account. */
  function accountBar(account) {
    if (!account) return h('div', {});
    return h('div', { class: C.bar }, [
      wrap(
        'control',
        h(
          'a',
          {
            role: 'button',
            href: '#',
            'aria-label': 'Google Account: ' + account.name + '  \n(' + account.email + ')',
          },
          [h('img', { class: C.capAvatar, src: L.avatar(account.name), alt: '' })],
        ),
      ),
    ]);
  }

  /* accounts.google.com: where Meet sends a browser it does not take as signed in. */
  function renderSignIn() {
    root.replaceChildren(
      h('div', { class: C.end }, [
        h('h1', { class: C.title }, 'Sign in'),
        h('div', { class: C.subtitle }, 'to continue to Google Meet'),
        wrap(
          'control',
          h('input', { type: 'email', class: C.input, 'aria-label': 'Email or phone', autocomplete: 'username' }),
        ),
        h('div', { class: C.actions }, [
          button('Forgot email?'),
          button('Create account'),
          button('Next', { class: C.btn + ' ' + C.primary }),
        ]),
      ]),
    );
  }

  function askToJoin(name) {
    var notice =
      JOIN_INTERSTITIALS[O.prejoinDialog && O.prejoinDialog !== 'none' ? O.prejoinDialog : SIM.joinInterstitial];
    if (notice && !local.dialogDone) return confirmFirst(name, notice);
    L.post('join', {
      meetingId: SIM.meetingId,
      platform: 'google_meet',
      name: name,
      micOn: local.micOn,
      camOn: local.camOn,
      hl: SIM.hl,
    }).then(function (r) {
      L.connect(local, r.guestId, render);
    });
  }

  /*
   * A notice after the join click, in Meet's modal dialog (div[aria-modal=true][role=dialog]),
   * where the meeting's options ask for one (MeetingOptions.prejoinDialog) or this page load drew
   * one (SIM.joinInterstitial): the recording and transcription notices, "Others may see your
   * video differently", "Gemini is taking notes" (Leave or Join now). Leaving goes home.
   */
  var JOIN_INTERSTITIALS = {
    recording: [
      'This video call is being recorded',
      'By joining, you\u2019re consenting to this call being recorded.',
      [
        ['Leave meeting', false],
        ['Join now', true],
      ],
    ],
    transcribing: [
      'This video call is being transcribed',
      'By joining, you\u2019re consenting to this call being transcribed.',
      [
        ['Leave meeting', false],
        ['Join now', true],
      ],
    ],
    videoDifferent: [
      'Others may see your video differently',
      'Your video might look different to others, depending on their connection.',
      [['Got it', true]],
    ],
    gemini: [
      'Gemini is taking notes',
      'The notes will be shared with the meeting organizer.',
      [
        ['Leave', false],
        ['Join now', true],
      ],
    ],
    join_anyway: [
      'Others may not see or hear you',
      'Your camera and microphone are off.',
      [
        ['Cancel', false],
        ['Join anyway', true],
      ],
    ],
  };
  function confirmFirst(name, notice) {
    var scrim = h('div', { class: C.scrim }, [
      h('div', { role: 'dialog', 'aria-modal': 'true', class: C.dialog }, [
        h('h2', { class: C.dialogTitle }, notice[0]),
        h('p', { class: C.dialogText }, notice[1]),
        h(
          'div',
          { class: C.actions },
          notice[2].map(function (b) {
            return button(b[0], {
              class: C.btn + (b[1] ? ' ' + C.primary : ''),
              'data-mdc-dialog-action': b[1] ? 'ok' : 'cancel',
              onclick: function () {
                if (!b[1]) {
                  location.href = '/';
                  return;
                }
                scrim.remove();
                local.dialogDone = true;
                askToJoin(name);
              },
            });
          }),
        ),
      ]),
    ]);
    document.body.appendChild(scrim);
  }

  // ---- screens driven by the simulator

  /* A tile per person, and a second one, "<name> (Presentation)", while someone presents. */
  var tiles = L.gallery(
    function () {
      return local.ui.grid;
    },
    function (p) {
      return [p.id].concat(p.presenting ? [p.id + '/presentation'] : []);
    },
    drawTile,
    markSpeaking,
  );

  // Meet receives up to three audio tracks, one per recent speaker.
  var render = L.screens(
    local,
    media,
    {
      reset: function () {
        tiles.clear();
        local.blocks.clear();
        closePopups();
      },
      lobby: renderLobby,
      call: renderCall,
      end: renderEnd,
      people: function (people, speaking) {
        tiles.paint(people, speaking);
        local.ui.count.textContent = String(people.length);
      },
      captions: paintCaptions,
      /* The host's captions off: the captions button is disabled or taken out of the toolbar (SIM.captionsRefused). */
      captionsSetting: {
        set: setCaptions,
        redraw: paintCaptionsButton,
        notices: ['The host turned captions back on', 'The host turned off captions for everyone'],
      },
    },
    { slots: 3, root: root },
  );

  /* The self-view's effects panel, where this page load draws one (SIM.effectsTile, call-chrome.js). */
  function effects() {
    return L.effectsTile(SIM, C.tile + ' ' + C.effects, icon);
  }

  /*
   * The asking screen. Where this page load draws the effects panel, the lobby shows its own
   * toolbar too (the field notes: "Leave call" and the mic button exist in the lobby as well).
   */
  function renderLobby() {
    var panel = effects();
    var toolbar = panel
      ? h(
          'div',
          { class: C.bar },
          [
            h('button', { class: C.ctl, type: 'button', 'aria-label': 'Turn on microphone' }, [icon('mic_off')]),
            h('button', { class: C.ctl, type: 'button', 'aria-label': 'Turn on camera' }, [icon('videocam_off')]),
            leaveButton(),
          ].map(function (control) {
            return wrap('control', control);
          }),
        )
      : null;
    root.replaceChildren(
      h('div', { class: C.prejoin }, [
        h('div', { class: C.preview }, [h('div', { class: C.videoOff }, 'Camera is off'), panel]),
        h('div', { class: C.side }, [
          wrap('control', h('div', { class: C.title, role: 'status' }, LOBBY_WORDS[0])),
          h('div', { class: C.subtitle }, LOBBY_WORDS[1]),
          h('div', { class: C.actions }, [
            button('Return to home screen', {
              onclick: function () {
                L.post('leave', { guest: local.guestId }).then(function () {
                  location.href = '/';
                });
              },
            }),
          ]),
        ]),
      ]),
      toolbar,
    );
  }

  /*
   * Where the organization admits no guest, in the wording this page load drew (SIM.refusal):
   * Meet's best-known sentence, a "not allowed" variant, a sign-in heading with a Sign in button,
   * or the block screen of a browser Meet will not take as a guest ("There is a problem connecting").
   */
  var REFUSALS = {
    a: [
      'You can\u2019t join this video call',
      'You can\u2019t join this video call because you aren\u2019t allowed in',
      false,
    ],
    b: [
      'You\u2019re not allowed to join this meeting',
      'Only people invited by the organizer can get in. Ask them to add you.',
      false,
    ],
    c: ['Sign in to join', 'Only people with an account in the host\u2019s organization can join this call.', true],
    d: ['There is a problem connecting to this video call', 'Try again, or sign in to your Google Account.', false],
  };
  function renderRefused() {
    var words = REFUSALS[SIM.refusal] || REFUSALS.a;
    root.replaceChildren(
      h('div', { class: C.end }, [
        wrap('control', h('h1', { class: C.title }, words[0])),
        wrap('control', h('div', { class: C.subtitle }, words[1])),
        h('div', { class: C.actions }, [
          words[2]
            ? button('Sign in', {
                class: C.btn + ' ' + C.primary,
                onclick: function () {
                  location.href = 'https://accounts.google.com/';
                },
              })
            : null,
          button('Return to home screen', {
            onclick: function () {
              location.href = '/';
            },
          }),
        ]),
      ]),
    );
  }

  function renderEnd(kind) {
    var text = SCREEN_WORDS[kind] || ['', ''];
    root.replaceChildren(
      h('div', { class: C.end }, [
        // roSPhc: the class the end screens' heading has kept across builds (the field notes).
        wrap('control', h('h1', { class: C.title + ' roSPhc' }, text[0])),
        text[1] ? wrap('control', h('div', { class: C.subtitle }, text[1])) : null,
        h('div', { class: C.actions }, [
          kind === 'removed' || kind === 'left' ? button('Rejoin') : null,
          kind === 'denied' || kind === 'no_response' ? button('Ask to join again') : null,
          button('Return to home screen', {
            onclick: function () {
              location.href = '/';
            },
          }),
        ]),
      ]),
    );
  }

  // ---- the call

  function renderCall() {
    media.stop();
    var grid = h('div', { class: C.grid }, [effects()]);
    var captionsHost = h('div', { class: C.captionsHost });
    var count = h('div', { class: C.badge }, '1');
    var cc =
      O.captionsButton === false || O.captionsAvailable === false
        ? null
        : h(
            'button',
            {
              class: C.ctl,
              type: 'button',
              onclick: function () {
                setCaptions(!local.captionsOn);
              },
            },
            [icon('closed_caption_off')],
          );
    var more = h(
      'button',
      { class: C.ctl, type: 'button', 'aria-label': 'More options', 'aria-haspopup': 'menu', onclick: toggleMoreMenu },
      [icon('more_vert')],
    );
    var leave = leaveButton();
    var controls = [
      h('div', { class: C.clock }, SIM.code),
      callMicButton(),
      h('button', { class: C.ctl, type: 'button', 'aria-label': 'Turn on camera', 'data-is-muted': 'true' }, [
        icon('videocam_off'),
      ]),
      cc,
      more,
      leave,
      h('button', { class: C.ctl, type: 'button', 'aria-label': 'People' }, [icon('people'), count]),
      window.__SIMCHAT__.button(local, 'google_meet'),
    ].map(function (control) {
      return control && wrap('control', control);
    });
    var bar = h('div', { class: C.bar }, controls);
    // Drawn 'autoHide': hidden until the pointer moves, kept while a menu or the settings are open (call-chrome.js).
    if (SIM.toolbar === 'autoHide')
      L.autoHidingBar(bar, C.barHidden, function () {
        return !!(local.popups.menu || local.popups.settings);
      });
    root.replaceChildren(h('div', { class: C.call }, [grid, captionsHost, bar]));
    // ccOuter, moreOuter: the captions button as the toolbar holds it, and its neighbour, for a host who takes it away.
    local.ui = {
      grid: grid,
      captionsHost: captionsHost,
      cc: cc,
      count: count,
      list: null,
      region: null,
      regionOuter: null,
      bar: bar,
      ccOuter: controls[3],
      moreOuter: controls[4],
    };
    paintCaptionsButton();
    if (O.gotItPopup) {
      var popup = h('div', { class: C.scrim }, [
        h('div', { role: 'dialog', 'aria-modal': 'true', class: C.dialog }, [
          h('h2', { class: C.dialogTitle }, 'Others may see your video differently'),
          h('p', { class: C.dialogText }, 'Your video might look different to others.'),
          h('div', { class: C.actions }, [
            button('Got it', {
              class: C.btn + ' ' + C.primary,
              onclick: function () {
                popup.remove();
              },
            }),
          ]),
        ]),
      ]);
      document.body.appendChild(popup);
    }
  }

  document.addEventListener('keydown', function (e) {
    if (local.screen !== 'in_call' || typing(e) || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.key === 'c' && O.captionsAvailable !== false && local.captionsAllowed !== false)
      setCaptions(!local.captionsOn);
  });

  // ---- the caption language: More options -> Settings -> Captions -> Meeting language

  /*
   * Meet's settings dialog has a tab per area; "Captions" holds "Meeting language", a combobox
   * whose list names the languages in the UI's language (hl=en) and applies a pick at once. Texts
   * follow Meet's English UI as Google's help pages and existing bots describe it (assumed, not
   * copied from a live page). Menus and lists are popups at the end of the body, as in Meet.
   */
  var LANGUAGES = O.captionLanguages || ['English'];
  var SETTINGS_TABS = [
    ['Audio', 'volume_up'],
    ['Video', 'videocam'],
    ['General', 'settings'],
    ['Captions', 'closed_caption'],
    ['Reactions', 'add_reaction'],
  ];
  local.captionLanguage = LANGUAGES[0];
  local.popups = { menu: null, settings: null, list: null };

  function popup(key, el) {
    closePopup(key);
    local.popups[key] = el;
    document.body.appendChild(el);
  }
  function closePopup(key) {
    if (local.popups[key]) local.popups[key].remove();
    local.popups[key] = null;
  }
  function closePopups() {
    ['list', 'menu', 'settings'].forEach(closePopup);
  }
  // A click anywhere else closes an open menu or list, as Meet's do.
  document.addEventListener('click', function () {
    closePopup('menu');
    closePopup('list');
  });

  function menuItem(iconName, label, onclick) {
    return wrap(
      'control',
      h(
        'div',
        {
          role: 'menuitem',
          tabindex: '-1',
          class: C.btn,
          onclick: function (e) {
            e.stopPropagation();
            closePopup('menu');
            if (onclick) onclick();
          },
        },
        [icon(iconName), h('span', {}, label)],
      ),
    );
  }

  function toggleMoreMenu(e) {
    e.stopPropagation();
    if (local.popups.menu) return closePopup('menu');
    popup(
      'menu',
      h('div', { role: 'menu', 'aria-label': 'Call options', class: C.dialog }, [
        menuItem('view_quilt', 'Change layout', L.videoView.adjustView),
        menuItem('fullscreen', 'Full screen'),
        menuItem('auto_awesome', 'Apply visual effects'),
        menuItem('feedback', 'Report a problem'),
        menuItem('settings', 'Settings', openSettings),
      ]),
    );
  }

  function openSettings() {
    var tablist = h('div', { role: 'tablist', 'aria-orientation': 'vertical', 'aria-label': 'Settings' });
    var panel = h('div', { role: 'tabpanel', class: C.side });
    var tabs = SETTINGS_TABS.filter(function (t) {
      return t[0] !== 'Captions' || O.captionLanguageSettings !== false;
    });
    function select(name) {
      closePopup('list');
      tablist.replaceChildren.apply(
        tablist,
        tabs.map(function (t) {
          return wrap(
            'control',
            h(
              'button',
              {
                type: 'button',
                role: 'tab',
                'aria-selected': String(t[0] === name),
                class: C.btn,
                onclick: function () {
                  select(t[0]);
                },
              },
              [icon(t[1]), h('span', {}, t[0])],
            ),
          );
        }),
      );
      panel.replaceChildren.apply(panel, name === 'Captions' ? captionsTab() : [h('div', { class: C.subtitle }, name)]);
    }
    popup(
      'settings',
      h('div', { class: C.scrim }, [
        h('div', { role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Settings', class: C.dialog }, [
          h('h2', { class: C.dialogTitle }, 'Settings'),
          wrap(
            'control',
            h(
              'button',
              {
                type: 'button',
                'aria-label': 'Close dialog',
                class: C.btn,
                onclick: function () {
                  closePopups();
                },
              },
              [icon('close')],
            ),
          ),
          tablist,
          panel,
        ]),
      ]),
    );
    select('Audio');
  }

  function captionsTab() {
    var labelId = 'caption-language-' + SIM.seed;
    var value = h('span', {}, local.captionLanguage);
    var box = h(
      'div',
      {
        role: 'combobox',
        tabindex: '0',
        'aria-haspopup': 'listbox',
        'aria-expanded': 'false',
        'aria-labelledby': labelId,
        class: C.btn,
        onclick: function (e) {
          e.stopPropagation();
          if (local.popups.list) return closeList();
          box.setAttribute('aria-expanded', 'true');
          popup(
            'list',
            h(
              'div',
              { role: 'listbox', 'aria-label': 'Meeting language', class: C.dialog },
              LANGUAGES.map(function (label) {
                return wrap(
                  'control',
                  h(
                    'div',
                    {
                      role: 'option',
                      'aria-selected': String(label === local.captionLanguage),
                      class: C.btn,
                      onclick: function (ev) {
                        ev.stopPropagation();
                        choose(label);
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
      [value, icon('arrow_drop_down')],
    );
    function closeList() {
      closePopup('list');
      box.setAttribute('aria-expanded', 'false');
    }
    function choose(label) {
      closeList();
      value.textContent = label;
      L.pickCaptionLanguage(local, label);
    }
    return [
      h('div', { id: labelId, class: C.dialogTitle }, 'Meeting language'),
      h('div', { class: C.dialogText }, 'The language spoken in this meeting, used for captions'),
      wrap('control', box),
      h('div', { class: C.dialogText }, [
        h('span', {}, 'Translated captions'),
        wrap(
          'control',
          h(
            'button',
            {
              type: 'button',
              role: 'switch',
              'aria-checked': 'false',
              'aria-label': 'Translated captions',
              class: C.btn,
            },
            [icon('translate')],
          ),
        ),
      ]),
    ];
  }

  function paintCaptionsButton() {
    var ui = local.ui;
    var cc = ui && ui.cc;
    if (!cc) return;
    var refused = local.captionsAllowed === false;
    if (SIM.captionsRefused === 'absent') {
      if (refused && ui.ccOuter.parentNode) ui.ccOuter.remove();
      if (!refused && !ui.ccOuter.parentNode) ui.bar.insertBefore(ui.ccOuter, ui.moreOuter);
    }
    var disabled = refused && SIM.captionsRefused !== 'absent';
    cc.disabled = disabled;
    cc.setAttribute('aria-disabled', String(disabled));
    if (disabled) cc.setAttribute('data-tooltip', 'The host turned off captions for this call');
    else cc.removeAttribute('data-tooltip');
    cc.setAttribute('aria-label', local.captionsOn ? 'Turn off captions' : 'Turn on captions');
    cc.setAttribute('aria-pressed', String(local.captionsOn));
    cc.firstChild.textContent = local.captionsOn ? 'closed_caption' : 'closed_caption_off';
  }

  function setCaptions(on) {
    if (on && local.captionsAllowed === false) return;
    local.captionsOn = on;
    var ui = local.ui;
    if (on && !ui.region) {
      ui.list = h('div', { class: C.capList });
      ui.region = h('div', { role: 'region', 'aria-label': 'Captions', tabindex: '0', class: C.capRegion }, [
        wrap('list', ui.list),
      ]);
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

  /*
   * Each person's tile shows whether they speak now; the bot's own and presentation tiles never do.
   * How, this page load drew (SIM.speakingMark), as Meet builds have: the build's outline class on
   * the tile ('class'), a border drawn on a leaf element over the tile ('border'), the mic icon
   * turned into an equalizer ('icon'), audio-level bars moving with the voice ('level'), or a
   * glow (a box-shadow) set on the tile ('glow'). Never an attribute that says who speaks.
   */
  function markSpeaking(entry, on) {
    if (!entry || entry.speaking === on) return;
    entry.speaking = on;
    if (SIM.speakingMark === 'class') entry.tile.classList.toggle(C.speaking, on);
    if (SIM.speakingMark === 'border') entry.ring.style.border = on ? '4px solid #8ab4f8' : '';
    if (SIM.speakingMark === 'glow') entry.tile.style.boxShadow = on ? '0 0 6px 3px rgba(138, 180, 248, 0.9)' : '';
    if (SIM.speakingMark === 'icon') entry.mic.textContent = on ? 'graphic_eq' : 'mic_off';
    if (SIM.speakingMark === 'level') {
      clearInterval(entry.bounce);
      level(entry, on ? 2 : 0);
      if (on)
        entry.bounce = setInterval(function () {
          level(entry, 1 + Math.floor(Math.random() * 3));
        }, 150);
    }
  }
  function level(entry, value) {
    entry.level.setAttribute('data-audio-level', String(value));
    [].forEach.call(entry.level.children, function (bar, i) {
      bar.style.height = (value ? 3 + Math.round(Math.random() * 3 * value) : 3) + 'px';
    });
  }

  /*
   * The bot's own tile is marked the way this page load drew (SIM.selfTile): data-self-name on an
   * element inside the tile ('inner') or on the tile itself ('tile'), or no marker and the name
   * shown as "You" ('you') or "<name> (You)" ('nameYou').
   */
  function drawTile(p, key) {
    var presentation = key !== p.id;
    var self = p.self && !presentation;
    var shown = presentation
      ? p.name + ' (Presentation)'
      : self && SIM.selfTile === 'you'
        ? 'You'
        : self && SIM.selfTile === 'nameYou'
          ? p.name + ' (You)'
          : p.name;
    var id = 'spaces/' + SIM.space + '/devices/' + key;
    var name = h('div', { class: C.tileName, 'data-self-name': self && SIM.selfTile === 'inner' ? 'You' : null }, [
      wrap('tileName', h('span', { class: 'notranslate' }, shown)),
    ]);
    var mic = icon('mic_off');
    var level =
      SIM.speakingMark === 'level'
        ? h(
            'div',
            { class: C.level, 'data-audio-level': '0', 'aria-hidden': 'true' },
            [0, 1, 2].map(function () {
              return h('span', { class: C.levelBar });
            }),
          )
        : null;
    var media = h('div', { class: C.tileMedia }, [
      wrap('tileAvatar', h('img', { class: C.tileAvatar, src: L.avatar(p.name), alt: '' })),
    ]);
    // A leaf over the tile, where 'border' builds draw the speaking outline.
    var ring = h('div', { class: C.tileRing, 'aria-hidden': 'true' });
    var tile = h(
      'div',
      {
        class: C.tile,
        'data-participant-id': id,
        'data-requested-participant-id': id,
        'data-self-name': self && SIM.selfTile === 'tile' ? 'You' : null,
      },
      [media, ring, h('div', { class: C.tileBar }, [level || mic, wrap('tileName', name)])],
    );
    var outer = wrap('tile', tile);
    outer.__sim = {
      name: p.name,
      canSpeak: !p.self && !presentation,
      speaking: false,
      tile: tile,
      mic: mic,
      level: level,
      ring: ring,
      bounce: null,
    };
    return outer;
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
        var el = wrap(
          'block',
          h('div', { class: C.capBlock }, [
            wrap(
              'head',
              h('div', { class: C.capHead }, [
                wrap('avatar', h('img', { class: C.capAvatar, src: L.avatar(b.speaker), alt: '' })),
                wrap('name', h('div', { class: C.capName }, [h('span', {}, b.speaker)])),
              ]),
            ),
            wrap('text', text),
          ]),
        );
        entry = { el: el, text: text };
        local.blocks.set(b.id, entry);
        list.appendChild(el);
      }
      // Meet rewrites the text of a block in place rather than adding nodes.
      if (entry.text.textContent !== b.text) entry.text.textContent = b.text;
    });
    local.blocks.forEach(function (entry, id) {
      if (!keep.has(id)) {
        entry.el.remove();
        local.blocks.delete(id);
      }
    });
  }

  if (SIM.screen === 'sign_in') renderSignIn();
  else if (SIM.screen === 'cannot_join') renderRefused();
  else if (SIM.screen) renderEnd(SIM.screen);
  else if (O.interstitial) L.interstitial(root, C.end, SIM.meetingId, renderPrejoin);
  else L.halfDrawn(root, renderPrejoin);
});
