/*
 * Simulated Zoom web client: the launch page ("Launch Meeting", "Join from your browser"), the
 * walls the web client may put up instead of its pre-join (an invalid meeting id, a CAPTCHA, a
 * meeting for signed-in users only), the pre-join as this load's build draws it (passcode and name
 * fields, preview toggles, "Join"; the permission dialog, terms, cookie banners), the
 * waiting screens (the host has not started the meeting; the waiting room), the call (audio dialog,
 * a banner, toolbar, caption overlay, full transcript and participants panels) and the end screens.
 * Every wall, refusal and waiting text comes in two wordings (SIM.wording). Once the bot asked to
 * join, everything it shows comes from the event stream.
 */
window.__SIMLIB__.client(function (L, SIM, C, root) {
  'use strict';
  var h = L.h;
  var wrap = L.wrap;
  var O = SIM.options || {};
  // panels: which side panels are open.
  var local = L.state({ panels: { participants: false, transcript: false } });
  var media = L.media(local);
  var W = SIM.wording === 'b' ? 1 : 0;

  var WORDS = L.worded(SIM.wording, {
    invalid: [
      'This meeting ID is not valid. Please check and try again.',
      'Invalid meeting ID. Please check the meeting ID and try again.',
    ],
    captcha: ['I\u2019m not a robot', 'Verify you are human'],
    captchaNote: [
      'Please complete the security check to join the meeting.',
      'We need to make sure you are not a bot before you join.',
    ],
    refused: ['This meeting is for authorized attendees only', 'Only signed-in users can join this meeting'],
    refusedNote: [
      'Sign in to your Zoom account to join this meeting.',
      'The host requires participants to sign in with a Zoom account.',
    ],
    passcodeWrong: ['Passcode wrong, please try again.', 'Incorrect meeting passcode. Please try again.'],
    waitingHost: [
      'Waiting for the host to start this meeting',
      'This meeting has not started yet. You will join when the host starts it.',
    ],
    waitingRoom: [
      'Please wait, the meeting host will let you in soon.',
      'Host has joined. We\u2019ve let them know you\u2019re here.',
    ],
    removed: ['You have been removed from this meeting by the host.', 'The host has removed you from the meeting.'],
    ended: ['This meeting has been ended by host', 'The meeting has been ended by the host.'],
    denied: ['The host has removed you from the waiting room.', 'The host denied your request to join this meeting.'],
    no_response: ['The host did not admit you in time.', 'No one let you in. Please try joining again later.'],
    left: ['You left the meeting.', 'You have left the meeting.'],
    title: ['Join Meeting', 'Enter Meeting Info'],
  });

  function button(label, attrs) {
    return h('button', Object.assign({ class: C.btn, type: 'button' }, attrs || {}), [h('span', {}, label)]);
  }
  function page(kids) {
    root.replaceChildren(h('div', { class: C.page }, kids));
  }

  // ---- the launch page: zoom.us/j/<id>, usNNweb.zoom.us/j/<id>, zoom.us/my/<name>

  function renderLaunch() {
    var target =
      (SIM.launch === 'direct' ? '' : 'https://app.zoom.us') +
      '/wc/join/' +
      encodeURIComponent(SIM.meetingId) +
      (SIM.pwd ? '?pwd=' + encodeURIComponent(SIM.pwd) : '');
    var browserLink = h('p', {}, [
      'Having issues with Zoom Workplace? ',
      wrap('control', h('a', { href: target }, 'Join from your browser')),
    ]);
    var linkHost = h('div', {}, SIM.launch === 'direct' ? [browserLink] : []);
    page([
      h('h1', { class: C.title }, 'Click Open Zoom Workplace on the dialog shown by your browser'),
      // The desktop app's protocol: nothing here answers it; the browser link shows afterwards.
      wrap(
        'control',
        button('Launch Meeting', {
          class: C.btn + ' ' + C.primary,
          onclick: function () {
            if (!linkHost.firstChild) linkHost.appendChild(browserLink);
          },
        }),
      ),
      linkHost,
    ]);
    if (W === 1) {
      var cookies = h('div', { role: 'dialog', 'aria-label': 'Cookie preferences', class: C.banner }, [
        h('p', {}, 'We use cookies to improve your experience.'),
        button('Cookie Settings'),
        button('Accept Cookies', {
          class: C.btn + ' ' + C.primary,
          onclick: function () {
            cookies.remove();
          },
        }),
      ]);
      document.body.appendChild(cookies);
    }
  }

  function renderSignIn() {
    page([
      h('h1', { class: C.title }, 'Sign In'),
      h('input', { type: 'email', class: C.input, 'aria-label': 'Email Address', placeholder: 'Email Address' }),
      h('input', { type: 'password', class: C.input, 'aria-label': 'Password', placeholder: 'Password' }),
      button('Sign In', { class: C.btn + ' ' + C.primary }),
    ]);
  }

  // ---- the web client: walls, pre-join, waiting for the host

  function renderWall(screen) {
    if (screen === 'invalid') return page([wrap('control', h('h2', { class: C.title }, WORDS.invalid)), button('OK')]);
    if (screen === 'captcha') {
      return page([
        h('h2', { class: C.title }, W === 0 ? 'Security check' : WORDS.captcha),
        h('p', {}, WORDS.captchaNote),
        wrap(
          'control',
          h('label', {}, [
            h('input', { type: 'checkbox', 'aria-label': WORDS.captcha }),
            ' ' + (W === 0 ? WORDS.captcha : 'I am human'),
          ]),
        ),
        h('iframe', { title: 'reCAPTCHA', width: '300', height: '80' }),
      ]);
    }
    page([
      wrap('control', h('h2', { class: C.title }, WORDS.refused)),
      h('p', {}, WORDS.refusedNote),
      button('Sign In', {
        class: C.btn + ' ' + C.primary,
        onclick: function () {
          location.href = 'https://zoom.us/signin#/login';
        },
      }),
    ]);
  }

  function toggle(labels, on, onChange) {
    var el = button(labels[on ? 0 : 1], { 'aria-label': labels[on ? 0 : 1] });
    el.addEventListener('click', function () {
      on = !on;
      el.setAttribute('aria-label', labels[on ? 0 : 1]);
      el.firstChild.textContent = labels[on ? 0 : 1];
      onChange(on);
    });
    return el;
  }

  // ---- the pre-join, as this page load's build draws it (field notes, Zoom 1)

  /* The classic client (zoom.us/wc/...) draws its own fields whatever the seed drew. */
  var NAME_FORM = SIM.classic ? 'classic' : SIM.nameField;
  var PASSCODE_FORM = SIM.classic ? 'classic' : SIM.passcodeField;
  var FIELD_WORDS = { name: ['Your Name', 'Enter your name'][W], passcode: ['Meeting Passcode', 'Passcode'][W] };
  // What the bot did before the call, reported with the join (the truth's bots[i].prejoin).
  var answers = {
    devicesAllowed: false,
    permissionDialogs: 0,
    termsAgreed: SIM.terms === 'none' ? null : false,
    cookiesAccepted: SIM.cookies === 'none' ? null : false,
  };
  var modal = null;

  /*
   * A field of the form: `{ input, node }`, the node being what goes in the form (the input with
   * its label where it has one). `form` is how this build marks it (SIM.nameField, SIM.passcodeField).
   */
  function field(kind, form) {
    var words = FIELD_WORDS[kind];
    var type = kind === 'passcode' && form !== 'placeholder' ? 'password' : 'text';
    var attrs = { type: type, class: C.input, autocomplete: 'off' };
    var seedId = kind + '-' + (SIM.seed % 46656).toString(36);
    if (form === 'react')
      Object.assign(attrs, {
        id: kind === 'name' ? 'input-for-name' : 'input-for-pwd',
        'aria-label': kind === 'name' ? 'Your Name' : 'Meeting Passcode',
        placeholder: kind === 'name' ? 'Your Name' : 'Meeting Passcode',
      });
    if (form === 'classic')
      Object.assign(attrs, {
        id: kind === 'name' ? 'inputname' : 'inputpasscode',
        placeholder: kind === 'name' ? 'Your Name' : 'Meeting Passcode',
      });
    if (form === 'placeholder') attrs.placeholder = words;
    if (form === 'unknownId') attrs.id = 'f' + seedId;
    if (form !== 'label') {
      var plain = h('input', attrs);
      return { input: plain, node: wrap('control', plain) };
    }
    var how = SIM.fieldLabel;
    if (how === 'for') attrs.id = 'l' + seedId;
    if (how === 'labelledby') attrs['aria-labelledby'] = 't' + seedId;
    var input = h('input', attrs);
    if (how === 'wrapping')
      return { input: input, node: h('label', {}, [h('span', {}, words), ' ', wrap('control', input)]) };
    var label =
      how === 'for'
        ? h('label', { for: attrs.id }, words)
        : h('div', how === 'labelledby' ? { id: 't' + seedId } : {}, words);
    return { input: input, node: h('div', {}, [label, wrap('control', input)]) };
  }

  /*
   * The Join button: React's `button.preview-join-button`, class `disabled` until a name is typed,
   * under an overlay (`.preview-meeting-info`) that takes pointer clicks; the classic `#joinBtn`;
   * or a button "Join" and nothing else. `setReady(ready)` shows whether it can be pressed.
   */
  function joinButton() {
    var react = NAME_FORM === 'react';
    var el = button(
      'Join',
      react
        ? { class: C.btn + ' ' + C.primary + ' preview-join-button disabled' }
        : { id: NAME_FORM === 'classic' ? 'joinBtn' : null, class: C.btn + ' ' + C.primary, disabled: true },
    );
    var node = react
      ? h('div', { style: 'position:relative' }, [
          el,
          h('div', { class: 'preview-meeting-info', style: 'position:absolute;inset:0' }),
        ])
      : el;
    return {
      el: el,
      node: node,
      setReady: function (ready) {
        if (react) el.classList.toggle('disabled', !ready);
        else el.disabled = !ready;
      },
      ready: function () {
        return react ? !el.classList.contains('disabled') : !el.disabled;
      },
    };
  }

  /* A dialog over the client, made modal: the Join button does nothing while it is open. */
  function showModal(label, kids) {
    var scrim = h('div', { class: C.scrim }, [
      h('div', { role: 'dialog', 'aria-modal': 'true', 'aria-label': label, class: C.dialog }, kids),
    ]);
    modal = scrim;
    document.body.appendChild(scrim);
    return function close() {
      scrim.remove();
      if (modal === scrim) modal = null;
    };
  }

  /*
   * The permission dialog (SIM.permission: once or twice, the second a moment after the first):
   * "Allow" turns microphone and camera on, "Continue without microphone and camera" leaves them
   * off. Wording b draws its choices as `div[role=button]`s.
   */
  var PERMISSION = [
    {
      title: 'Do you want people to see and hear you in the meeting?',
      allow: 'Allow microphone and camera',
      without: 'Continue without microphone and camera',
    },
    { title: 'Use your microphone and camera?', allow: 'Allow', without: 'Continue without Microphone and Camera' },
  ][W];
  function askPermission(times, allowDevices) {
    var choice = function (label, action) {
      var attrs = {
        class: C.btn,
        onclick: function () {
          close();
          answers.permissionDialogs++;
          action();
          if (times > 1)
            setTimeout(function () {
              askPermission(times - 1, allowDevices);
            }, 500);
        },
      };
      return wrap(
        'control',
        W === 0
          ? h('button', Object.assign({ type: 'button' }, attrs), [h('span', {}, label)])
          : h('div', Object.assign({ role: 'button', tabindex: '0' }, attrs), label),
      );
    };
    var close = showModal('Microphone and camera', [
      h('h2', {}, PERMISSION.title),
      h('p', {}, 'You can change this later in the settings.'),
      choice(PERMISSION.allow, function () {
        answers.devicesAllowed = true;
        allowDevices();
      }),
      choice(PERMISSION.without, function () {}),
    ]);
  }

  /* Terms to agree to after the first click on Join (SIM.terms); agreeing joins, or lets Join join. */
  function askTerms(join) {
    var agree = ['I Agree', 'Accept'][W];
    var close = showModal('Terms of Service', [
      h('h2', {}, 'Terms of Service and Privacy Policy'),
      h(
        'p',
        {},
        [
          'By clicking "' + agree + '", you agree to the Terms of Service and Privacy Statement.',
          'Please review and accept our Terms of Use and Privacy Policy to continue.',
        ][W],
      ),
      wrap(
        'control',
        button('Cancel', {
          onclick: function () {
            close();
          },
        }),
      ),
      wrap(
        'control',
        button(agree, {
          class: C.btn + ' ' + C.primary,
          onclick: function () {
            close();
            answers.termsAgreed = true;
            if (SIM.terms === 'agreeJoins') join();
          },
        }),
      ),
    ]);
  }

  /* A cookie banner over the client (SIM.cookies): OneTrust's, or a plain bar. */
  function cookieBanner() {
    if (SIM.cookies === 'none') return;
    var accept = ['Accept Cookies', 'Accept All Cookies'][W];
    var accepted = function () {
      answers.cookiesAccepted = true;
      banner.remove();
    };
    var banner =
      SIM.cookies === 'onetrust'
        ? h('div', { id: 'onetrust-consent-sdk' }, [
            h('div', { id: 'onetrust-banner-sdk', role: 'region', 'aria-label': 'Cookie banner', class: C.banner }, [
              h('p', { id: 'onetrust-policy-text' }, 'We use cookies to give you the best experience on our website.'),
              h('div', { id: 'onetrust-button-group' }, [
                h(
                  'button',
                  {
                    id: 'onetrust-reject-all-handler',
                    type: 'button',
                    onclick: function () {
                      answers.cookiesAccepted = false;
                      banner.remove();
                    },
                  },
                  'Reject All',
                ),
                h('button', { id: 'onetrust-accept-btn-handler', type: 'button', onclick: accepted }, accept),
              ]),
            ]),
          ])
        : h('div', { class: C.banner }, [
            h('span', {}, 'This website uses cookies. '),
            wrap('control', button(accept, { onclick: accepted })),
          ]);
    document.body.appendChild(banner);
  }

  function renderPrejoin() {
    var account = SIM.account;
    var video = h('video', { class: C.video, autoplay: true, muted: true, playsinline: true });
    var asking = SIM.permission !== 'none';
    // Asked first, the client has no devices until the permission dialog's "Allow".
    if (asking) local.micOn = local.camOn = false;
    var passcode = SIM.askPasscode ? field('passcode', PASSCODE_FORM) : null;
    var name = account ? null : field('name', NAME_FORM);
    var error = h('div', { role: 'alert', class: C.error });
    var join = joinButton();
    var ready = function () {
      join.setReady(!((name && !name.input.value.trim()) || (passcode && !passcode.input.value)));
    };
    [name, passcode].forEach(function (f) {
      if (f) f.input.addEventListener('input', ready);
    });
    ready();
    var mic = toggle(['Mute', 'Unmute'], local.micOn, function (on) {
      local.micOn = on;
      media.apply();
    });
    var cam = toggle(['Stop Video', 'Start Video'], local.camOn, function (on) {
      local.camOn = on;
      if (on) media.start(video);
      else media.apply();
    });
    var submit = function () {
      join.setReady(false);
      error.textContent = '';
      askToJoin(
        {
          meetingId: SIM.meetingId,
          name: account ? account.name : name.input.value.trim(),
          passcode: passcode ? passcode.input.value : null,
          pwd: SIM.pwd,
          micOn: local.micOn,
          camOn: local.camOn,
          prejoin: answers,
        },
        function refused() {
          error.textContent = WORDS.passcodeWrong;
          passcode.input.value = '';
          ready();
        },
      );
    };
    // The client is still asking about devices between its two permission dialogs: Join waits for it.
    var dialogsToAnswer = { none: 0, once: 1, twice: 2 }[SIM.permission];
    join.el.addEventListener('click', function () {
      if (!join.ready() || modal || answers.permissionDialogs < dialogsToAnswer) return;
      if (answers.termsAgreed === false) return askTerms(submit);
      submit();
    });
    var draw = function () {
      root.replaceChildren(
        header(account),
        h('div', { class: C.page }, [
          h('h1', { class: C.title }, WORDS.title),
          h('div', { class: C.preview }, [video]),
          h('div', { class: C.previewBar }, [wrap('control', mic), wrap('control', cam)]),
          passcode ? passcode.node : null,
          account ? h('div', {}, account.name) : name.node,
          error,
          h('label', {}, [h('input', { type: 'checkbox' }), ' Remember my name for future meetings']),
          wrap('control', join.node),
        ]),
      );
      if (!asking) media.start(video);
    };
    // Where the notes are silent: some loads draw the form a moment after the page.
    if (SIM.formTiming === 'late') {
      root.replaceChildren(h('div', { class: C.page }, [h('h1', { class: C.title }, WORDS.title)]));
      setTimeout(draw, 600 + (SIM.seed % 600));
    } else draw();
    cookieBanner();
    if (asking)
      askPermission(SIM.permission === 'twice' ? 2 : 1, function () {
        if (!local.micOn) mic.click();
        if (!local.camOn) cam.click();
      });
  }

  /* The signed-in web client's profile button; its label names the account. */
  function header(account) {
    if (!account) return h('div', {});
    return h('div', { class: C.previewBar }, [
      wrap(
        'control',
        h('button', { type: 'button', class: C.btn, 'aria-label': 'Profile, ' + account.name }, [
          h('span', {}, account.name.charAt(0)),
        ]),
      ),
    ]);
  }

  /* Asks to join; the host not there yet: the waiting screen, asking again once the host starts. */
  function askToJoin(body, refused) {
    fetch('/_sim/zoom/join', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
      .then(function (r) {
        return r.json();
      })
      .then(function (answer) {
        if (answer.refused === 'passcode') return refused();
        if (answer.waiting === 'host') return waitForHost(body, refused);
        if (answer.error) return renderWall('refused');
        L.connect(local, answer.guestId, render);
      });
  }

  function waitForHost(body, refused) {
    media.stop();
    page([
      wrap('control', h('h2', { class: C.title }, WORDS.waitingHost)),
      h('p', {}, 'Meeting ID: ' + SIM.meetingId),
      button('Leave', { 'aria-label': 'Leave' }),
    ]);
    var poll = setInterval(function () {
      fetch('/_sim/zoom/status?id=' + encodeURIComponent(SIM.meetingId))
        .then(function (r) {
          return r.json();
        })
        .then(function (s) {
          if (!s.started) return;
          clearInterval(poll);
          askToJoin(body, refused);
        });
    }, 400);
  }

  // ---- after asking: the waiting room, the call, the end

  // Zoom receives one audio track mixing everybody.
  var render = L.screens(
    local,
    media,
    {
      reset: function () {
        videos.clear();
        local.panels = { participants: false, transcript: false };
        closeCaptionSettings();
      },
      lobby: function () {
        page([
          wrap('control', h('h2', { class: C.title }, WORDS.waitingRoom)),
          h('p', {}, 'Meeting topic: ' + SIM.meetingId),
          button('Leave', { 'aria-label': 'Leave' }),
        ]);
      },
      call: renderCall,
      end: function (terminal) {
        page([wrap('control', h('h2', { class: C.title }, WORDS[terminal])), button('OK')]);
      },
      people: function (people, speaking) {
        videos.paint(people, speaking);
        paintParticipants(people);
      },
      captions: paintCaptions,
      /* The host's captions off: the captions controls are disabled or gone (SIM.captionsRefused, see drawCaptionControls). */
      captionsSetting: {
        set: setCaptions,
        redraw: function () {
          closeMenu();
          drawCaptionControls();
        },
        notices: ['The host has enabled captions', 'The host has disabled captions'],
      },
    },
    { slots: 1, root: root },
  );

  /*
   * The video tiles, one per person (the bot's too): Zoom's own class names (field notes, Zoom 4),
   * the name in the tile's footer. The active speaker's frame gets the active class where this
   * page load shows it there (SIM.speakingMark 'frame' or 'both'; 'entry': on the panel entry).
   */
  var videos = L.gallery(
    function () {
      return local.ui.videos;
    },
    function (p) {
      return [p.id];
    },
    function (p) {
      var frame = h('div', { class: 'speaker-bar-container__video-frame' }, [
        h('div', { class: 'video-avatar__avatar' }, [
          h('img', { class: C.ccAvatar, src: L.avatar(p.name), alt: '' }),
          h('div', { class: 'video-avatar__avatar-footer' }, [h('span', {}, p.name)]),
        ]),
      ]);
      frame.__sim = { name: p.name, canSpeak: !p.self, frame: frame };
      return frame;
    },
    function (entry, on) {
      if (SIM.speakingMark !== 'entry') entry.frame.classList.toggle('speaker-bar-container__video-frame--active', on);
    },
  );

  function renderCall() {
    media.stop();
    var videoArea = h('div', { class: C.videos });
    var menuHost = h('div', {});
    var side = h('div', { class: C.stage });
    var ccHost = h('div', { class: C.ccHost });
    var cc = h('div', {});
    var participantsButton = h(
      'button',
      {
        type: 'button',
        class: C.btn,
        'aria-label': 'open the participants list pane',
        onclick: function () {
          setPanel('participants', !local.panels.participants);
        },
      },
      [h('span', {}, 'Participants'), h('span', {}, '1')],
    );
    var leave = button('Leave', { class: C.btn + ' ' + C.danger, 'aria-label': 'Leave', onclick: confirmLeave });
    root.replaceChildren(
      h('div', { class: C.call }, [
        h('div', { class: C.stage }, [
          h('div', { style: 'flex:1' }, [h('div', {}, 'Meeting ' + SIM.meetingId), videoArea]),
          side,
        ]),
        ccHost,
        h(
          'footer',
          { class: C.bar },
          [
            callMicButton(),
            toggleButton(['stop my video', 'start my video'], ['Stop Video', 'Start Video'], local.camOn),
            participantsButton,
            window.__SIMCHAT__.button(local, 'zoom'),
            cc,
            button('Reactions', { 'aria-label': 'Reactions' }),
            moreButton(),
            leave,
            menuHost,
          ].map(function (control) {
            return wrap('control', control);
          }),
        ),
      ]),
    );
    local.ui = {
      side: side,
      videos: videoArea,
      ccHost: ccHost,
      cc: cc,
      menuHost: menuHost,
      participants: null,
      transcript: null,
      count: participantsButton.lastChild,
      overlay: null,
    };
    drawCaptionControls();
    // Zoom asks how to join audio on entering, and may put a banner over the call.
    var audio = h('div', { class: C.scrim }, [
      h('div', { role: 'dialog', 'aria-label': 'Join audio', class: C.dialog }, [
        h('h2', {}, 'Join Audio'),
        button('Join Audio by Computer', {
          class: C.btn + ' ' + C.primary,
          onclick: function () {
            audio.remove();
          },
        }),
      ]),
    ]);
    document.body.appendChild(audio);
    if (SIM.banner !== 'none') {
      var text =
        SIM.banner === 'recording'
          ? 'This meeting is being recorded by the host.'
          : 'Tip: turn on captions from the Captions button.';
      var banner = h('div', { role: 'dialog', 'aria-label': 'Notice', class: C.banner }, [
        h('span', {}, text),
        button(SIM.banner === 'recording' ? 'Got it' : 'OK', {
          onclick: function () {
            banner.remove();
          },
        }),
      ]);
      document.body.appendChild(banner);
    }
  }

  /*
   * The footer's microphone (the field notes' Zoom 7): labelled "mute my microphone" / "unmute my
   * microphone", or only its text "Mute" / "Unmute" (SIM.micWording); the call hears the bot while
   * it is on (call-microphone.js). The bot joins muted.
   */
  function callMicButton() {
    var long = SIM.micWording !== 'textOnly';
    var el = h('button', { type: 'button', class: C.btn }, [h('span', {}, 'Unmute')]);
    local.mic = local.mic || L.callMicrophone(local);
    return local.mic.button(el, {
      on: [long ? 'mute my microphone' : null, 'Mute'],
      off: [long ? 'unmute my microphone' : null, 'Unmute'],
    });
  }
  function toggleButton(labels, texts, on) {
    var el = h('button', { type: 'button', class: C.btn, 'aria-label': labels[on ? 0 : 1] }, [
      h('span', {}, texts[on ? 0 : 1]),
    ]);
    el.addEventListener('click', function () {
      on = !on;
      el.setAttribute('aria-label', labels[on ? 0 : 1]);
      el.firstChild.textContent = texts[on ? 0 : 1];
    });
    return el;
  }

  function confirmLeave() {
    var scrim = h('div', { class: C.scrim }, [
      h('div', { role: 'dialog', 'aria-label': 'Leave meeting', class: C.dialog }, [
        h('p', {}, 'Are you sure you want to leave this meeting?'),
        button('Leave Meeting', {
          class: C.btn + ' ' + C.danger,
          onclick: function () {
            scrim.remove();
            L.post('leave', { guest: local.guestId });
          },
        }),
        button('Cancel', {
          onclick: function () {
            scrim.remove();
          },
        }),
      ]),
    ]);
    document.body.appendChild(scrim);
  }

  // ---- captions: the CC control (a menu, or a toggle with its own menu), the overlay, the transcript

  function closeMenu() {
    if (local.ui) local.ui.menuHost.replaceChildren();
  }
  document.addEventListener(
    'click',
    function (e) {
      if (local.ui && !local.ui.menuHost.contains(e.target)) closeMenu();
    },
    true,
  );

  /* The toolbar's More: "Stop Incoming Video" (and back on): no video is sent to this client meanwhile (call-video.js). */
  function moreButton() {
    return button('More', {
      'aria-label': 'More meeting control',
      'aria-haspopup': 'menu',
      onclick: function (e) {
        e.stopPropagation();
        var on = L.videoView.incoming;
        var item = menuItem(on ? 'Stop Incoming Video' : 'Start Incoming Video', function () {
          L.videoView.setIncoming(!on);
        });
        setTimeout(function () {
          local.ui.menuHost.replaceChildren(h('div', { role: 'menu', 'aria-label': 'More', class: C.menu }, [item]));
        }, 0);
      },
    });
  }

  function menuItem(label, action) {
    return wrap(
      'control',
      h(
        'div',
        {
          role: 'menuitem',
          tabindex: '-1',
          class: C.menuItem,
          onclick: function (e) {
            e.stopPropagation();
            closeMenu();
            action();
          },
        },
        [h('span', {}, label)],
      ),
    );
  }

  function openMenu(items) {
    setTimeout(function () {
      local.ui.menuHost.replaceChildren(
        h('div', { role: 'menu', 'aria-label': 'Captions options', class: C.menu }, items),
      );
    }, 0);
  }

  function captionItems(withToggle) {
    var items = [];
    if (withToggle)
      items.push(
        menuItem(local.captionsOn ? 'Hide Captions' : 'Show Captions', function () {
          setCaptions(!local.captionsOn);
        }),
      );
    items.push(
      menuItem('View Full Transcript', function () {
        setPanel('transcript', true);
      }),
    );
    if (translatedCaptions())
      items.push(
        menuItem('Translated Captions', function () {
          openCaptionSettings('translated');
        }),
      );
    items.push(
      menuItem('Caption Settings', function () {
        openCaptionSettings('settings');
      }),
    );
    return items;
  }

  // ---- the caption language: "Speaking language", in "Caption Settings" or "Translated Captions"

  /*
   * The language Zoom transcribes the meeting in is its "Speaking language", a dropdown of
   * languages named mostly without a region ("German", "French (France)"), saved with "Save". On
   * builds with translated captions (SIM.languageSetting) it is in the "Translated Captions"
   * dialog, above the language captions are translated to, and "Caption Settings" holds only the
   * captions' look. Modelled on Zoom's help pages on automated and translated captions.
   */
  var settingsDialog = null;
  var LANGUAGES = O.captionLanguages || ['English'];
  local.captionLanguage = LANGUAGES[0];

  function translatedCaptions() {
    return SIM.languageSetting === 'translated' && O.captionLanguageSettings !== false;
  }

  function openCaptionSettings(which) {
    closeCaptionSettings();
    var spoken =
      which === 'translated' || (SIM.languageSetting !== 'translated' && O.captionLanguageSettings !== false);
    var chosen = local.captionLanguage;
    var title = which === 'translated' ? 'Translated captions' : 'Caption settings';
    var spokenBox = spoken
      ? dropdown('Speaking language', LANGUAGES, chosen, function (label) {
          chosen = label;
        })
      : null;
    // The translation's target: what the captions are shown in, never what the meeting is spoken in.
    var translateBox =
      which === 'translated'
        ? dropdown(
            'Translate to',
            ['(None)', 'English', 'French (France)', 'German', 'Spanish'],
            '(None)',
            function () {},
          )
        : null;
    var save = button('Save', {
      class: C.btn + ' ' + C.primary,
      onclick: function () {
        L.pickCaptionLanguage(local, chosen);
        closeCaptionSettings();
      },
    });
    settingsDialog = h('div', { class: C.scrim }, [
      h('div', { role: 'dialog', 'aria-modal': 'true', 'aria-label': title, class: C.dialog }, [
        h('h2', {}, title),
        h('p', {}, 'Font size: Medium'),
        spokenBox,
        translateBox,
        h('div', {}, [wrap('control', button('Cancel', { onclick: closeCaptionSettings })), wrap('control', save)]),
      ]),
    ]);
    document.body.appendChild(settingsDialog);
  }

  /* A labelled dropdown: a combobox showing the choice, its listbox of options while open. */
  function dropdown(labelText, options, current, onPick) {
    var labelId = 'dropdown-' + labelText.replace(/\W+/g, '-').toLowerCase() + '-' + SIM.seed;
    var parts = L.dropdown(labelId, options, current, onPick);
    return h('div', {}, [h('div', { id: labelId }, labelText), parts.box, parts.list]);
  }

  function closeCaptionSettings() {
    if (settingsDialog) settingsDialog.remove();
    settingsDialog = null;
  }

  /* The toolbar's captions controls as this page load draws them, and as the host allows them now. */
  function drawCaptionControls() {
    var ui = local.ui;
    if (!ui) return;
    var refused = local.captionsAllowed === false;
    if (O.captionsAvailable === false || (refused && SIM.captionsRefused === 'absent')) return ui.cc.replaceChildren();
    var disabled = refused ? { 'aria-disabled': 'true', title: 'The host has disabled captions' } : {};
    var controls;
    if (SIM.ccControl === 'menu') {
      controls = [
        button(
          'Captions',
          Object.assign(
            {
              'aria-label': 'Captions',
              'aria-haspopup': 'menu',
              onclick: function () {
                if (!refused) openMenu(captionItems(true));
              },
            },
            disabled,
          ),
        ),
      ];
    } else {
      var label = local.captionsOn ? 'Hide Captions' : 'Show Captions';
      controls = [
        button(
          label,
          Object.assign(
            {
              'aria-label': label,
              onclick: function () {
                if (!refused) setCaptions(!local.captionsOn);
              },
            },
            disabled,
          ),
        ),
        button(
          '^',
          Object.assign(
            {
              'aria-label': 'More options for captions',
              'aria-haspopup': 'menu',
              onclick: function () {
                if (!refused) openMenu(captionItems(false));
              },
            },
            disabled,
          ),
        ),
      ];
    }
    ui.cc.replaceChildren.apply(
      ui.cc,
      controls.map(function (c) {
        return wrap('control', c);
      }),
    );
  }

  function setCaptions(on) {
    local.captionsOn = on;
    var ui = local.ui;
    if (on && !ui.overlay) {
      ui.overlay = h('div', { id: 'live-transcription-subtitle', 'aria-live': 'polite', class: C.ccHost });
      ui.ccHost.appendChild(wrap('overlay', ui.overlay));
    }
    if (!on && ui.overlay) {
      ui.ccHost.replaceChildren();
      ui.overlay = null;
    }
    drawCaptionControls();
    L.post('captions', { guest: local.guestId, on: on });
    if (local.lastView) paintCaptions(local.lastView.captions);
  }

  /*
   * The overlay: the last few lines, each the speaker's avatar (and on some page loads the name,
   * SIM.captionName) beside the text. The full transcript: every line with the speaker's name.
   */
  function paintCaptions(entries) {
    var ui = local.ui;
    if (!ui) return;
    if (ui.overlay) {
      ui.overlay.replaceChildren.apply(
        ui.overlay,
        entries.slice(-(O.visibleRows || 3)).map(function (entry) {
          var head = h('div', { class: C.ccHead }, [
            wrap('avatar', h('img', { class: C.ccAvatar, src: L.avatar(entry.speaker), alt: '' })),
            SIM.captionName === 'name' ? wrap('name', h('span', { class: C.ccName }, entry.speaker)) : null,
          ]);
          return wrap(
            'line',
            h('div', { class: C.ccLine }, [
              wrap('head', head),
              wrap('text', h('span', { class: C.ccText }, entry.text)),
            ]),
          );
        }),
      );
    }
    if (ui.transcript) {
      ui.transcript.replaceChildren.apply(
        ui.transcript,
        entries.map(function (entry) {
          var head = h('div', { class: C.thead }, [
            h('img', { class: C.ccAvatar, src: L.avatar(entry.speaker), alt: '' }),
            h('span', { class: C.tname }, entry.speaker),
            h('time', {}, clock(entry.id)),
          ]);
          return wrap(
            'entry',
            h('div', { role: 'listitem', class: C.titem }, [
              wrap('entryHead', head),
              wrap('entryText', h('div', { class: C.ttext }, entry.text)),
            ]),
          );
        }),
      );
    }
  }

  /* A time of day for a transcript entry (the simulator's blocks carry none: their order is enough). */
  function clock(id) {
    var minutes = 9 * 60 + Number(id || 0);
    return String(Math.floor(minutes / 60)).padStart(2, '0') + ':' + String(minutes % 60).padStart(2, '0');
  }

  // ---- side panels: participants and the full transcript

  function setPanel(which, open) {
    var ui = local.ui;
    local.panels[which] = open;
    ui.side.replaceChildren();
    ui.participants = ui.transcript = null;
    if (local.panels.participants) {
      ui.participants = h('div', { role: 'list', 'aria-label': 'participants list', class: C.plist });
      ui.side.appendChild(
        h('div', { role: 'complementary', 'aria-label': 'Participants', class: C.side }, [
          h('div', { class: C.panelTitle }, 'Participants'),
          ui.participants,
          button('Close', {
            'aria-label': 'close the participants list pane',
            onclick: function () {
              setPanel('participants', false);
            },
          }),
        ]),
      );
    }
    if (local.panels.transcript) {
      ui.transcript = h('div', { role: 'list', 'aria-label': 'transcript list', class: C.tlist });
      ui.side.appendChild(
        h('div', { role: 'complementary', 'aria-label': 'Transcript', class: C.side }, [
          h('div', { class: C.panelTitle }, 'Transcript'),
          ui.transcript,
          button('Close', {
            'aria-label': 'close the transcript pane',
            onclick: function () {
              setPanel('transcript', false);
            },
          }),
        ]),
      );
    }
    if (local.lastView) {
      paintParticipants(local.lastView.participants);
      paintCaptions(local.lastView.captions);
    }
  }

  /* The bot's own entry, labelled the way this page load drew (SIM.selfTile). */
  function selfLabel(name) {
    if (SIM.selfTile === 'Me') return name + ' (Me)';
    if (SIM.selfTile === 'guestMe') return name + ' (Guest, me)';
    if (SIM.selfTile === 'name') return name;
    return name + ' (me)';
  }

  /* "Alice (Host)", "Bob (Guest)": the first person in the meeting hosts it. */
  function label(person, host) {
    var tags = [];
    if (person === host) tags.push('Host');
    if (person.suffix === 'Guest') tags.push('Guest');
    return person.name + (tags.length ? ' (' + tags.join(', ') + ')' : '');
  }

  function paintParticipants(people) {
    var ui = local.ui;
    if (!ui) return;
    ui.count.textContent = String(people.length);
    if (!ui.participants) return;
    var host = people.filter(function (p) {
      return !p.self;
    })[0];
    var speaking = local.speaking ? local.speaking.names() : [];
    ui.participants.replaceChildren.apply(
      ui.participants,
      people.map(function (p) {
        var shown = p.self ? selfLabel(p.name) : label(p, host);
        // The entry's outline, where this page load shows the speaker there (SIM.speakingMark 'entry' or 'both').
        var outlined = SIM.speakingMark !== 'frame' && !p.self && speaking.indexOf(p.name) >= 0;
        var item = h(
          'div',
          {
            role: 'listitem',
            'aria-label': shown + ', computer audio muted, video off',
            class: C.pitem + (outlined ? ' ' + C.speaking : ''),
          },
          [h('img', { class: C.ccAvatar, src: L.avatar(p.name), alt: '' }), h('span', {}, shown)],
        );
        return wrap('item', item);
      }),
    );
  }

  if (SIM.page === 'launch') renderLaunch();
  else if (SIM.page === 'signin') renderSignIn();
  else if (SIM.screen) renderWall(SIM.screen);
  else if (O.interstitial) L.interstitial(root, C.page, SIM.meetingId, renderPrejoin);
  else L.halfDrawn(root, renderPrejoin);
});
