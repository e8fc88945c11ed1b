/*
 * Simulated Microsoft Teams web client: the launcher ("Continue on this browser"), the light-meetings
 * pre-join screen, the lobby, the call (toolbar, More menu, gallery, captions in a virtualized list
 * that recycles its rows) and the end screens. Everything it shows comes from the event stream.
 */
window.__SIMLIB__.client(function (L, SIM, C, root) {
  'use strict';
  var h = L.h;
  var wrap = L.wrap;
  var ROW_HEIGHT = 56;
  // The meeting's options, once the app has asked for them (startApp).
  var O = {};
  // pool, slots: the caption list's rows and the entry each shows; dialogOpen: the pre-join's no-media dialog is up.
  var local = L.state({ meetingId: null, dialogOpen: false, pool: [], slots: [] });
  var media = L.media(local);

  /*
   * The end screens in the wording this page load drew (SIM.screenWording): the best-known
   * sentences, and for some the same screen in other words, as other builds, tenants and locales
   * word it: what a driver knowing only the first must still tell apart by meaning.
   */
  var SCREEN_WORDS = L.worded(SIM.screenWording, {
    denied: ['Sorry, but you were denied access to the meeting.', 'Your request to join was declined.'],
    no_response: ['Sorry, no one responded to your request to join.'],
    removed: [
      'You\u2019ve been removed from this meeting',
      'You were removed from the meeting by the organizer.',
      'Removed from the meeting',
    ],
    ended: ['The meeting has ended.', 'The organizer ended the meeting for everyone.'],
    left: ['You left the meeting.'],
    not_found: [
      'This meeting link is invalid.',
      'That meeting doesn\u2019t exist anymore.',
      'Looks like the meeting URL is incorrect. Please check the URL and try again.',
    ],
  });

  /* The lobby in the wording this page load drew (SIM.lobbyWording): a heading and a line. */
  var LOBBY_WORDS = {
    meetingShould: ['Someone in the meeting should let you in soon', ''],
    admitted: ['Waiting to be admitted', 'The organizer has been told you\u2019re waiting.'],
    whenStarts: ['When the meeting starts, we\u2019ll let people know you\u2019re waiting.', ''],
  };

  function button(label, attrs) {
    return h('button', Object.assign({ class: C.btn, type: 'button' }, attrs || {}), [h('span', {}, label)]);
  }

  // ---- launcher: the page a meeting link opens

  /*
   * The launcher's way to the browser as this page load drew it (SIM.launcher), beside the app's;
   * it leads to the /v2/ app or to the light-meetings page (SIM.app), handing on the seed.
   */
  var LAUNCHERS = {
    joinOnWeb: { tag: 'button', label: 'Continue on this browser', attrs: { 'data-tid': 'joinOnWeb' } },
    ariaLabel: {
      tag: 'button',
      label: 'Use the web app instead',
      attrs: { 'aria-label': 'Join meeting from this browser' },
    },
    joinOnBrowser: { tag: 'a', label: 'Join on this browser', attrs: { href: '#', role: 'button' } },
    fromBrowser: { tag: 'button', label: 'Join from browser', attrs: {} },
  };
  function webAppUrl() {
    if (SIM.app === 'light') {
      var coords = btoa(JSON.stringify({ meetingUrl: location.pathname + location.search }));
      return (
        '/light-meetings/launch?agent=web&version=25010400100&coords=' +
        encodeURIComponent(coords) +
        '&p=SimPass42&anon=true&lightExperience=true&simSeed=' +
        SIM.seed
      );
    }
    return '/v2/?meetingjoin=true&simSeed=' + SIM.seed + '#' + location.pathname + location.search;
  }
  function renderLauncher() {
    var way = LAUNCHERS[SIM.launcher] || LAUNCHERS.joinOnWeb;
    var go = h(
      way.tag,
      Object.assign(
        {
          class: C.btn + ' ' + C.primary,
          type: way.tag === 'button' ? 'button' : null,
          onclick: function (e) {
            e.preventDefault();
            location.href = webAppUrl();
          },
        },
        way.attrs,
      ),
      [h('span', {}, way.label)],
    );
    root.replaceChildren(
      h('div', { class: C.launcher }, [
        h('h1', { class: C.title }, 'How do you want to join your Teams meeting?'),
        button('Join on the Teams app', { 'data-tid': 'joinInApp' }),
        wrap('control', go),
      ]),
    );
  }

  function renderLogin() {
    root.replaceChildren(
      h('div', { class: C.launcher }, [
        h('h1', { class: C.title }, 'Sign in'),
        h('input', { type: 'email', name: 'loginfmt', class: C.input, placeholder: 'Email, phone, or Skype' }),
        button('Next', { class: C.btn + ' ' + C.primary }),
      ]),
    );
  }

  // ---- light meetings app (/v2/#/l/meetup-join/... or /v2/#/meet/<id>)

  /* The meeting the app is for: in the /v2/ app's fragment, or in the light-meetings page's coords. */
  function meetingIdFromHash() {
    var path = location.hash.replace(/^#/, '').split('?')[0];
    var coords = new URLSearchParams(location.search).get('coords');
    if (coords) path = JSON.parse(atob(coords)).meetingUrl.split('?')[0];
    var m = path.match(/^\/l\/meetup-join\/([^/]+)/);
    if (m) return decodeURIComponent(m[1]);
    m = path.match(/^\/meet\/(\d+)/);
    return m ? m[1] : null;
  }

  /* The app's own token in localStorage of its origin: with the authtoken cookie, the signed-in session. */
  function storedToken() {
    for (var i = 0; i < localStorage.length; i++) {
      var key = localStorage.key(i);
      if (/^ts\.[0-9a-f-]+\.auth\.skype\.token$/.test(key)) return localStorage.getItem(key);
    }
    return null;
  }

  function toSignIn() {
    location.href =
      'https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=5e3ce6c0-2b1f-4285-8d4b-75ee78787346&response_mode=fragment&redirect_uri=' +
      encodeURIComponent(location.origin + '/v2/');
  }

  function loadingScreen() {
    root.replaceChildren(
      h('div', { id: 'loading-screen', class: C.end }, [h('div', { role: 'progressbar', 'aria-label': 'Loading' })]),
    );
  }

  /*
   * The light-meetings page shows its loading screen a while first (a stall some builds never
   * leave). Drawn lightRedirect 'once', the meeting's first browser here is sent on to the full
   * app with lightExperience=false instead (AT #904), which never gets to the meeting.
   */
  function startLight() {
    loadingScreen();
    setTimeout(
      function () {
        if (SIM.lightRedirect !== 'once') return startApp();
        fetch('/_sim/api/light-launch?id=' + encodeURIComponent(meetingIdFromHash() || ''))
          .then(function (r) {
            return r.json();
          })
          .then(function (answer) {
            if (!answer.disable) return startApp();
            location.replace('/v2/?meetingjoin=true&lightExperience=false&simSeed=' + SIM.seed);
          });
      },
      400 + (SIM.seed % 1200),
    );
  }

  function startApp() {
    local.meetingId = meetingIdFromHash();
    local.token = storedToken();
    fetch(
      '/_sim/api/meeting?platform=teams&seed=' +
        SIM.seed +
        '&id=' +
        encodeURIComponent(local.meetingId || '') +
        (local.token ? '&token=' + encodeURIComponent(local.token) : ''),
    )
      .then(function (r) {
        return r.json();
      })
      .then(function (info) {
        O = info.options || {};
        // A session Teams no longer accepts goes to sign in again; so does a guest where the tenant wants accounts.
        if (info.signIn === 'expired' || (info.signIn === 'guest' && O.guests === 'refused_sign_in')) return toSignIn();
        if (!info.exists) return renderEnd('not_found');
        if (info.signIn === 'guest' && O.guests === 'refused_screen') return renderRefused();
        if (O.botWall && SIM.captcha === 'beforePrejoin')
          return root.replaceChildren(h('div', { class: C.end }, [captcha()]));
        if (O.interstitial)
          return L.interstitial(root, C.end, local.meetingId, function () {
            renderPrejoin(info.account);
          });
        L.halfDrawn(root, function () {
          renderPrejoin(info.account);
        });
      });
  }

  /*
   * A tenant that turned anonymous join off, in the wording this page load drew (SIM.refusal): the
   * known sentence, an "anonymously" apology with a line about the organizer's settings, a bare
   * "Please sign in" that says nothing of guests, and the sign-in-needed screens builds have shown
   * (verify your info, sign in or use Teams on the web, external participants before the event).
   * Each has a Sign in button and no name field.
   */
  var REFUSALS = {
    a: ['Sign in to join this meeting', 'Your organization doesn\u2019t allow anonymous users to join this meeting.'],
    b: [
      'We\u2019re sorry, you can\u2019t join this meeting anonymously',
      'The meeting organizer\u2019s settings require people to sign in.',
    ],
    c: ['Please sign in', 'Use the account your meeting organizer invited.'],
    d: ['We need to verify your info before you can join', 'Sign in with the account your invitation was sent to.'],
    e: ['To join, sign in or use Teams on the web', 'Your organization requires an account for this meeting.'],
    f: [
      'External participants are not permitted to join before the event begins.',
      'Come back once the organizer has started it.',
    ],
  };
  function renderRefused() {
    var words = REFUSALS[SIM.refusal] || REFUSALS.a;
    root.replaceChildren(
      h('div', { class: C.end }, [
        wrap('control', h('h1', { class: C.title }, words[0])),
        h('p', {}, words[1]),
        button('Sign in', { class: C.btn + ' ' + C.primary, onclick: toSignIn }),
      ]),
    );
  }

  /* The name field as this page load drew it (SIM.nameField): data-tid and placeholder, the placeholder only, or a <label> only. */
  function nameField() {
    var attrs = { type: 'text', class: C.input, id: 'display-name-' + SIM.seed };
    if (SIM.nameField === 'dataTid')
      Object.assign(attrs, {
        'data-tid': 'prejoin-display-name-input',
        placeholder: 'Type your name',
        'aria-label': 'Type your name',
      });
    if (SIM.nameField === 'placeholder') attrs.placeholder = 'Type your name';
    var input = h('input', attrs);
    var field =
      SIM.nameField === 'label' ? h('div', {}, [h('label', { for: attrs.id }, 'Enter your name'), input]) : input;
    return { input: input, field: field };
  }

  /* A pre-join switch ([data-tid], [checked] while on), its label beside it. */
  function toggle(tid, label) {
    var input = h('input', {
      type: 'checkbox',
      role: 'switch',
      class: C.switch,
      'data-tid': tid,
      'aria-label': label,
      checked: true,
    });
    input.addEventListener('change', function () {
      if (input.checked) input.setAttribute('checked', '');
      else input.removeAttribute('checked');
    });
    return input;
  }

  /*
   * "Are you sure you don't want audio or video?", where this page load drew it (SIM.deviceModal;
   * MeetingOptions.noMediaDialog asks for it before): over the pre-join at once ('before', German
   * 'beforeGerman'), after "Select Allow to let Microsoft Teams use your mic and camera"
   * ('allowPrompt'), or after the Join click ('after', which goes on joining once answered). Join
   * now stays in the page behind it, and takes no click while it is up.
   */
  var DEVICE_MODALS = {
    en: [
      'Are you sure you don\u2019t want audio or video?',
      'Your browser can\u2019t use your microphone or camera.',
      'Continue without audio or video',
    ],
    de: [
      'M\u00f6chten Sie wirklich kein Audio oder Video verwenden?',
      'Ihr Browser kann Mikrofon und Kamera nicht verwenden.',
      'Ohne Audio oder Video fortfahren',
    ],
  };
  function deviceModal(words, then) {
    local.dialogOpen = true;
    var scrim = h('div', { class: C.scrim }, [
      h('div', { role: 'dialog', 'aria-modal': 'true', class: C.dialog }, [
        h('h2', {}, words[0]),
        h('p', {}, words[1]),
        button(words[2], {
          class: C.btn + ' ' + C.primary,
          onclick: function () {
            local.dialogOpen = false;
            scrim.remove();
            if (then) then();
          },
        }),
      ]),
    ]);
    document.body.appendChild(scrim);
  }

  function renderPrejoin(account) {
    var video = h('video', { class: C.video, autoplay: true, muted: true, playsinline: true });
    // Signed in, Teams shows the account (no name field) and the join button is ready at once.
    var name = account ? null : nameField();
    var cam = toggle('toggle-video', 'Camera');
    var mic = toggle('toggle-mute', 'Microphone');
    var join = h(
      'button',
      { class: C.btn + ' ' + C.primary, type: 'button', 'data-tid': 'prejoin-join-button', disabled: !account },
      'Join now',
    );
    var modal = O.noMediaDialog ? 'before' : SIM.deviceModal;
    cam.addEventListener('change', function () {
      local.camOn = cam.checked;
      if (local.camOn) media.start(video);
      else media.apply();
    });
    mic.addEventListener('change', function () {
      local.micOn = mic.checked;
      media.apply();
    });
    if (name)
      name.input.addEventListener('input', function () {
        join.disabled = !name.input.value.trim();
      });
    function post() {
      L.post('join', {
        meetingId: local.meetingId,
        platform: 'teams',
        name: account ? account.name : name.input.value.trim(),
        micOn: local.micOn && !local.noAudio,
        camOn: local.camOn,
        hl: null,
        token: local.token,
      }).then(function (r) {
        L.connect(local, r.guestId, render);
      });
    }
    join.addEventListener('click', function () {
      if (join.disabled || local.dialogOpen) return;
      join.disabled = true;
      // A suspected guest gets the CAPTCHA over the pre-join (SIM.captcha 'afterJoin'): never past it.
      if (O.botWall) {
        local.dialogOpen = true;
        return document.body.appendChild(h('div', { class: C.scrim }, [captcha()]));
      }
      if (modal === 'after' && !local.modalDone) {
        local.modalDone = true;
        return deviceModal(DEVICE_MODALS.en, post);
      }
      post();
    });
    root.replaceChildren(
      meControl(account),
      h('div', { class: C.prejoin }, [
        h('h2', { class: C.title }, 'Choose your video and audio options'),
        h('div', { class: C.preview }, [video]),
        account ? h('div', {}, account.name) : wrap('control', name.field),
        h(
          'div',
          { class: C.row2 },
          [h('label', {}, [wrap('control', cam), ' Camera'])].concat(
            SIM.audioOptions === 'radios' ? [] : [h('label', {}, [wrap('control', mic), ' Microphone'])],
          ),
        ),
        SIM.audioOptions === 'radios' ? audioRadios(mic) : null,
        wrap('control', join),
      ]),
    );
    function refuseDevices(words) {
      local.camOn = local.micOn = cam.checked = mic.checked = false;
      cam.removeAttribute('checked');
      mic.removeAttribute('checked');
      deviceModal(words);
    }
    if (modal === 'before' || modal === 'beforeGerman')
      return refuseDevices(DEVICE_MODALS[modal === 'before' ? 'en' : 'de']);
    if (modal === 'allowPrompt') {
      // Waiting on the browser's permission prompt, Teams takes no Join click.
      var prompt = h(
        'div',
        { role: 'alert', class: C.toast },
        'Select Allow to let Microsoft Teams use your mic and camera.',
      );
      local.dialogOpen = true;
      document.body.appendChild(prompt);
      return setTimeout(
        function () {
          prompt.remove();
          refuseDevices(DEVICE_MODALS.en);
        },
        800 + (SIM.seed % 700),
      );
    }
    media.start(video);
  }

  /*
   * The audio options some builds show: "Computer audio" (with the microphone switch), "Phone
   * audio", "Don't use audio". Choosing no audio takes the call's sound away from this page.
   */
  function audioRadios(mic) {
    function option(value, label, extra) {
      var radio = h('input', { type: 'radio', name: 'audio-' + SIM.seed, value: value, checked: value === 'computer' });
      radio.addEventListener('change', function () {
        local.noAudio = value !== 'computer';
        micRow.hidden = local.noAudio;
      });
      return h('div', {}, [h('label', {}, [radio, ' ' + label])].concat(extra || []));
    }
    var micRow = h('label', {}, [wrap('control', mic), ' Microphone']);
    return h('div', { role: 'radiogroup', 'aria-label': 'Audio options' }, [
      option('computer', 'Computer audio', [micRow]),
      option('phone', 'Phone audio'),
      option('none', 'Don\u2019t use audio'),
    ]);
  }

  /*
   * The account button of the signed-in app's header, as this page load draws it
   * (SIM.accountButton): with the ids of the build that had them and "Account manager for <name>"
   * ('ids'), that label without the ids ('label'), or "Your profile, status Available" with the
   * name on its avatar alone ('profile': Fluent's Avatar, role=img labelled by the name).
   */
  function meControl(account) {
    if (!account) return h('div', {});
    var way = SIM.accountButton || 'ids';
    var attrs = {
      type: 'button',
      class: C.btn,
      'aria-label': way === 'profile' ? 'Your profile, status Available' : 'Account manager for ' + account.name,
    };
    if (way === 'ids') {
      attrs.id = 'idna-me-control-avatar-trigger';
      attrs['data-tid'] = 'me-control-avatar-trigger';
    }
    var avatar = h(
      'span',
      way === 'profile' ? { role: 'img', 'aria-label': account.name } : {},
      account.name.charAt(0),
    );
    return h('div', { class: C.bar }, [wrap('control', h('button', attrs, [avatar]))]);
  }

  /* A tile per person on the call's stage. */
  var tiles = L.gallery(
    function () {
      return local.ui.stage;
    },
    function (p) {
      return [p.id];
    },
    drawTile,
    markSpeaking,
  );

  // Teams receives one audio track mixing everybody.
  var render = L.screens(
    local,
    media,
    {
      reset: function () {
        tiles.clear();
        closeLanguageSettings();
      },
      lobby: renderLobby,
      call: renderCall,
      end: renderEnd,
      people: function (people, speaking) {
        nameLabels(people);
        tiles.paint(people, speaking);
        local.ui.count.textContent = String(people.length);
      },
      captions: paintRows,
      /*
       * The organizer's captions off: the captions item of the menus is disabled or gone
       * (SIM.captionsRefused, see captionsItem); a menu open now was drawn for the old setting, so it
       * closes, as Teams redraws its menus.
       */
      captionsSetting: {
        set: setCaptions,
        redraw: function () {
          local.ui.menuHost.replaceChildren();
        },
        notices: ['The organizer turned on live captions', 'The organizer turned off live captions'],
      },
    },
    // The mix's track is named for it; drawn 'redundant', a second track carries the same sound (first on odd seeds).
    {
      slots: 1,
      root: root,
      mixName: 'mainAudio',
      redundant: SIM.mixTracks === 'redundant',
      copyFirst: SIM.seed % 2 === 1,
    },
  );

  /*
   * The call's microphone button, `#microphone-button`: "Mute" / "Unmute" or "Mute mic" / "Unmute
   * mic" (the field notes' Teams 7; SIM.micWording); the call hears the bot while it is on
   * (call-microphone.js).
   */
  function callMicButton() {
    var tail = SIM.micWording === 'mic' ? ' mic' : '';
    var el = h('button', { id: 'microphone-button', class: C.btn, type: 'button' }, [h('span', {}, 'Mic')]);
    local.mic = local.mic || L.callMicrophone(local);
    return local.mic.button(el, { on: ['Mute' + tail, 'Mic'], off: ['Unmute' + tail, 'Mic'] });
  }
  function hangup() {
    return h(
      'button',
      {
        id: 'hangup-button',
        'data-tid': 'hangup-main-btn',
        class: C.btn + ' ' + C.danger,
        type: 'button',
        'aria-label': 'Leave',
        onclick: function () {
          L.post('leave', { guest: local.guestId });
        },
      },
      [h('span', {}, 'Leave')],
    );
  }

  function renderLobby() {
    var lobbyWords = LOBBY_WORDS[SIM.lobbyWording] || ['Someone will let you in ' + (O.teamsLobbyWord || 'soon'), ''];
    root.replaceChildren(
      h('div', { class: C.lobby }, [
        h('div', { class: C.preview }, []),
        wrap('control', h('h2', { class: C.title }, lobbyWords[0])),
        lobbyWords[1] ? h('p', {}, lobbyWords[1]) : null,
        h('div', { class: C.bar }, [wrap('control', hangup())]),
      ]),
    );
  }

  /*
   * The CAPTCHA Teams shows a guest it suspects (MeetingOptions.botWall; AT #741, mostly on
   * cross-tenant joins): "Verify you're a real person", a puzzle in a frame of its own and a Next
   * that goes nowhere; in place of the pre-join or over it after the Join click (SIM.captcha).
   */
  function captcha() {
    var heading = 'captcha-' + SIM.seed;
    return h('div', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': heading, class: C.dialog }, [
      h('h2', { id: heading }, 'Verify you\u2019re a real person'),
      h('p', {}, 'Solve the puzzle so we know you\u2019re not a robot, then continue to the meeting.'),
      h('iframe', { title: 'Verification challenge', src: 'about:blank', style: 'width:300px;height:160px;border:0' }),
      button('Next', { class: C.btn + ' ' + C.primary }),
    ]);
  }

  /*
   * An end-to-end encrypted call this browser cannot take part in (MeetingOptions.e2ee): Teams'
   * E2EE end screen ([data-tid=calling-e2ee-end-screen], "An encryption error occurred"), in place
   * of the call on admission or a moment into it (SIM.e2eeEnd). Its sound goes with it.
   */
  function renderE2ee() {
    if (local.screen !== 'in_call') return;
    root.replaceChildren(
      h('div', { class: C.end, 'data-tid': 'calling-e2ee-end-screen' }, [
        wrap('control', h('h1', { class: C.title }, 'An encryption error occurred')),
        h('p', {}, 'Your call was disconnected because it couldn\u2019t be encrypted end to end.'),
        button('Dismiss', { 'data-tid': 'calling-retry-cancelbutton' }),
      ]),
    );
    if (local.audio) local.audio.close();
    local.audio = null;
  }

  function renderEnd(kind) {
    root.replaceChildren(
      h('div', { class: C.end }, [
        wrap('control', h('h1', { class: C.title, id: 'calling-retry-screen-title' }, SCREEN_WORDS[kind] || '')),
        kind === 'removed' ? button('Rejoin') : null,
        button('Dismiss', { 'data-tid': 'calling-retry-cancelbutton' }),
      ]),
    );
  }

  // ---- the call

  function renderCall() {
    media.stop();
    var count = h('span', { class: C.badge }, '1');
    var more = h(
      'button',
      {
        id: 'callingButtons-showMoreBtn',
        class: C.btn,
        type: 'button',
        'aria-label': 'More',
        'aria-haspopup': 'menu',
        onclick: function (e) {
          e.stopPropagation();
          toggleMenu();
        },
      },
      [h('span', {}, 'More')],
    );
    var stage = h('div', { class: C.stage });
    var ccHost = h('div', { class: C.ccHost });
    var menuHost = h('div', { class: C.menuHost });
    root.replaceChildren(
      h('div', { class: C.call }, [
        h(
          'div',
          { role: 'toolbar', 'aria-label': 'Meeting controls', class: C.bar },
          [
            h('button', { id: 'roster-button', class: C.btn, type: 'button', 'aria-label': 'People' }, [
              h('span', {}, 'People'),
              count,
            ]),
            window.__SIMCHAT__.button(local, 'teams'),
            more,
            callMicButton(),
            h('button', { id: 'video-button', class: C.btn, type: 'button', 'aria-label': 'Turn camera on' }, [
              h('span', {}, 'Camera'),
            ]),
            hangup(),
          ].map(function (control) {
            return wrap('control', control);
          }),
        ),
        menuHost,
        stage,
        ccHost,
      ]),
    );
    local.ui = { stage: stage, ccHost: ccHost, menuHost: menuHost, count: count, more: more, list: null };
    // After the call's audio started (screens() starts it once the call is drawn).
    if (O.e2ee) setTimeout(renderE2ee, SIM.e2eeEnd === 'inCall' ? 1500 + (SIM.seed % 1500) : 0);
  }

  /*
   * The captions item of a menu ("Captions", or "Turn on live captions"): while the organizer has
   * captions off, disabled with Teams' note, or left out.
   */
  function captionsItem(label, attrs, close) {
    if (local.captionsAllowed !== false)
      return menuItem(label, attrs, function () {
        close();
        setCaptions(!local.captionsOn);
      });
    if (SIM.captionsRefused === 'absent') return null;
    return menuItem(
      label,
      Object.assign({}, attrs, {
        'aria-disabled': 'true',
        'aria-description': 'Live captions have been turned off by the organizer',
      }),
      function () {},
    );
  }

  document.addEventListener('click', function () {
    if (local.ui) local.ui.menuHost.replaceChildren();
  });

  function menuItem(label, attrs, action) {
    return h(
      'div',
      Object.assign(
        {
          role: 'menuitem',
          tabindex: '-1',
          class: C.menuItem,
          onclick: function (e) {
            e.stopPropagation();
            action();
          },
        },
        attrs || {},
      ),
      [h('span', {}, label)],
    );
  }

  /* More -> "Turn off incoming video" (and back on): no video is sent to this client meanwhile (call-video.js). */
  function incomingVideoItem(close) {
    var on = L.videoView.incoming;
    return menuItem(on ? 'Turn off incoming video' : 'Turn on incoming video', {}, function () {
      close();
      L.videoView.setIncoming(!on);
    });
  }

  function toggleMenu() {
    var host = local.ui.menuHost;
    if (host.firstChild) return host.replaceChildren();
    var close = function () {
      host.replaceChildren();
    };
    var items = [menuItem('Meeting info', {}, close)];
    if (O.teamsCaptionsMenu === 'language' && O.captionsAvailable !== false) {
      items.push(
        menuItem('Language and speech', { 'aria-haspopup': 'menu' }, function () {
          host.appendChild(
            h(
              'div',
              { role: 'menu', class: C.menu },
              [
                captionsItem(local.captionsOn ? 'Turn off live captions' : 'Turn on live captions', {}, close),
                languageSettingsItem(close),
              ].filter(Boolean),
            ),
          );
        }),
      );
    } else if (O.captionsAvailable !== false) {
      items.push(captionsItem('Captions', { 'aria-checked': String(local.captionsOn) }, close));
    }
    items.push(menuItem('Settings', {}, close), menuItem('Full screen', {}, close));
    items.push(incomingVideoItem(close));
    host.appendChild(h('div', { role: 'menu', class: C.menu }, items.filter(Boolean)));
  }

  // ---- the caption language: "Language settings", from the captions' own "..." or More -> Language and speech

  /*
   * Teams' spoken language is set in the "Language settings" dialog: "Meeting spoken language", a
   * dropdown of languages named with their region ("German (Germany)"), applied with "Update".
   * Texts from Microsoft's support pages on live captions.
   */
  var languageDialog = null;

  function languageSettingsItem(close) {
    if (O.captionLanguageSettings === false) return null;
    return wrap(
      'control',
      menuItem('Language settings', {}, function () {
        close();
        openLanguageSettings();
      }),
    );
  }

  /* The "..." at the captions' right: their settings menu. */
  function captionsSettingsButton() {
    return wrap(
      'control',
      h(
        'button',
        {
          type: 'button',
          class: C.btn,
          'aria-label': 'Captions settings',
          'aria-haspopup': 'menu',
          onclick: function (e) {
            e.stopPropagation();
            var host = local.ui.menuHost;
            if (host.firstChild) return host.replaceChildren();
            var close = function () {
              host.replaceChildren();
            };
            host.appendChild(
              h(
                'div',
                { role: 'menu', class: C.menu },
                [wrap('control', menuItem('Caption style', {}, close)), languageSettingsItem(close)].filter(Boolean),
              ),
            );
          },
        },
        [h('span', { 'aria-hidden': 'true' }, '\u2026')],
      ),
    );
  }

  function openLanguageSettings() {
    closeLanguageSettings();
    var languages = O.captionLanguages || ['English (United States)'];
    local.captionLanguage = local.captionLanguage || languages[0];
    var chosen = local.captionLanguage;
    var labelId = 'spoken-language-' + SIM.seed;
    var spoken = L.dropdown(labelId, languages, chosen, function (label) {
      chosen = label;
    });
    // "Update" sets the spoken language for everyone in the meeting.
    var update = button('Update', {
      class: C.btn + ' ' + C.primary,
      onclick: function () {
        L.pickCaptionLanguage(local, chosen);
        closeLanguageSettings();
      },
    });
    languageDialog = h('div', { class: C.scrim }, [
      h(
        'div',
        { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'language-settings-' + SIM.seed, class: C.dialog },
        [
          h('h2', { id: 'language-settings-' + SIM.seed }, 'Language settings'),
          h('div', { id: labelId }, 'Meeting spoken language'),
          h(
            'p',
            {},
            'Make sure this is the language everyone is speaking. It\u2019s used for live captions and transcripts.',
          ),
          spoken.box,
          spoken.list,
          h('div', { class: C.row2 }, [
            wrap('control', button('Cancel', { onclick: closeLanguageSettings })),
            wrap('control', update),
          ]),
        ],
      ),
    ]);
    document.body.appendChild(languageDialog);
  }

  function closeLanguageSettings() {
    if (languageDialog) languageDialog.remove();
    languageDialog = null;
  }

  function setCaptions(on) {
    if (on && local.captionsAllowed === false) return;
    local.captionsOn = on;
    var ui = local.ui;
    if (on && !ui.list) {
      ui.list = h('div', { class: C.vlist, role: 'list', style: 'height:' + ROW_HEIGHT * O.visibleRows + 'px' });
      ui.ccHost.appendChild(
        wrap(
          'window',
          h('div', { 'data-tid': 'closed-caption-v2-window-wrapper', class: C.ccWindow }, [
            captionsSettingsButton(),
            wrap(
              'renderer',
              h('div', { 'data-tid': 'closed-caption-renderer-wrapper', class: C.ccRenderer }, [wrap('list', ui.list)]),
            ),
          ]),
        ),
      );
      local.pool = [];
      local.slots = [];
      for (var i = 0; i < O.visibleRows; i++) {
        // Unreadable: the same rows without the attributes a reader goes by, as after a platform change.
        var plain = O.captionMarkup === 'unreadable';
        var author = h('span', { 'data-tid': plain ? null : 'author', class: C.author });
        var text = h('span', { 'data-tid': plain ? null : 'closed-caption-text', class: C.ccText });
        var row = h('div', { role: 'listitem', class: C.row + ' fui-ChatMessageCompact', style: 'display:none' }, [
          wrap('head', h('div', { class: C.rowHead }, [wrap('author', author)])),
          wrap('body', h('div', { class: C.rowBody }, [wrap('text', text)])),
        ]);
        local.pool.push({ row: row, author: author, text: text });
        local.slots.push(null);
        ui.list.appendChild(wrap('row', row));
      }
    }
    if (!on && ui.list) {
      ui.ccHost.replaceChildren();
      ui.list = null;
    }
    L.post('captions', { guest: local.guestId, on: on });
    if (on && local.lastView) paintRows(local.lastView.captions);
  }

  /*
   * A virtualized list: a fixed pool of row elements. A row that scrolls out is reused for the next
   * new entry, and rows are placed by transform, so DOM order is not reading order.
   */
  function paintRows(entries) {
    if (!local.ui || !local.ui.list) return;
    var shown = entries.slice(-local.pool.length);
    var ids = shown.map(function (e) {
      return e.id;
    });
    local.slots = local.slots.map(function (id) {
      return ids.indexOf(id) >= 0 ? id : null;
    });
    shown.forEach(function (entry, position) {
      var slot = local.slots.indexOf(entry.id);
      if (slot < 0) {
        slot = local.slots.indexOf(null);
        local.slots[slot] = entry.id;
      }
      var cell = local.pool[slot];
      var author = labels[entry.speaker] || entry.speaker;
      if (cell.author.textContent !== author) cell.author.textContent = author;
      if (cell.text.textContent !== entry.text) cell.text.textContent = entry.text;
      cell.row.style.display = '';
      cell.row.style.transform = 'translateY(' + position * ROW_HEIGHT + 'px)';
    });
    local.slots.forEach(function (id, slot) {
      if (id === null) local.pool[slot].row.style.display = 'none';
    });
  }

  /*
   * People's names as Teams writes them on tiles and caption rows: "Alice (Guest)" and the like,
   * as the view's participants (nameLabels) last gave them.
   */
  var labels = {};
  function nameLabels(people) {
    people.forEach(function (p) {
      if (!p.self) labels[p.name] = p.suffix ? p.name + ' (' + p.suffix + ')' : p.name;
    });
  }

  /* The bot's own tile, labelled the way this page load drew (SIM.selfTile). */
  function selfLabel(name) {
    if (SIM.selfTile === 'guestYou') return name + ' (Guest) (You)';
    if (SIM.selfTile === 'you') return 'You';
    if (SIM.selfTile === 'name') return name;
    return name + ' (You)';
  }

  function drawTile(p) {
    var label = p.self ? selfLabel(p.name) : labels[p.name];
    // Every tile has its voice-level ring, shown only while its person speaks ('outline' builds).
    var ring =
      SIM.speakingMark === 'outline' ? h('div', { 'data-tid': 'voice-level-stream-outline', class: C.ring }) : null;
    var inner = h(
      'div',
      { 'data-cid': 'calling-participant-stream', role: 'group', 'aria-label': label + ', muted', class: C.tile },
      [ring, wrap('tileName', h('div', { class: C.tileName }, [wrap('tileName', h('span', {}, label))]))],
    );
    var tile = wrap('tile', inner);
    tile.__sim = { name: p.name, canSpeak: !p.self, label: label, speaking: false, tile: inner, ring: ring };
    return tile;
  }

  /*
   * Each person's tile shows whether they speak now; the bot's own never does. How, this page load
   * drew (SIM.speakingMark), as Teams builds have: its voice-level ring made visible by a class
   * ('outline'), the tile's ::before border brought to opacity 1 ('before'), "speaking" in its
   * label instead of "muted" ('label'), or a class of the build's own on the tile ('class', as
   * vdi-frame-occlusion). Never an attribute that says who speaks.
   */
  function markSpeaking(entry, on) {
    if (entry.speaking === on) return;
    entry.speaking = on;
    if (SIM.speakingMark === 'outline') entry.ring.classList.toggle(C.ringOn, on);
    if (SIM.speakingMark === 'before') entry.tile.style.setProperty('--voice-level', on ? '1' : '0');
    if (SIM.speakingMark === 'label')
      entry.tile.setAttribute('aria-label', entry.label + (on ? ', speaking' : ', muted'));
    if (SIM.speakingMark === 'class') entry.tile.classList.toggle(C.speaking, on);
  }

  if (SIM.page === 'launcher') renderLauncher();
  else if (SIM.page === 'login') renderLogin();
  else if (location.pathname.indexOf('/light-meetings/') === 0) startLight();
  // The full app a light-meetings page sent the browser on to: its loading screen, for good.
  else if (new URLSearchParams(location.search).get('lightExperience') === 'false') loadingScreen();
  else startApp();
});
