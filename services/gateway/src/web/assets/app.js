// The web application's only script (the CSP allows no inline script). Every page works without
// it; it adds copy buttons, confirmations, local times, the live transcript of a meeting and
// seeking its recording from the transcript.
// Text from the server is always put in with textContent, never parsed as HTML.
'use strict';

(function () {
  function announce(message) {
    const status = document.querySelector('.copy-status');
    if (status) status.textContent = message;
  }

  // ---- Copy buttons: <button data-copy="input-id">
  async function copyFrom(button) {
    const input = document.getElementById(button.dataset.copy);
    if (!input) return;
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      // No Clipboard API (plain http on another host) or no permission: the old way, and if even
      // that fails, leave it selected for Ctrl+C.
      input.focus();
      input.select();
      if (!document.execCommand('copy')) {
        announce('Selected. Press Ctrl+C (or Cmd+C) to copy.');
        return;
      }
    }
    const label = button.textContent;
    button.textContent = 'Copied';
    announce('Copied to the clipboard.');
    setTimeout(() => (button.textContent = label), 2000);
  }

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (button) copyFrom(button);
  });

  // ---- Confirmation before destructive forms: <form data-confirm="…">
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });

  // ---- Session file of a bot account: <input type=file data-session-into="textarea-id">. The form is
  // urlencoded, so the file's text goes in that textarea; one over the limit is not sent at all.
  document.addEventListener('change', async (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.dataset.sessionInto) return;
    const target = document.getElementById(input.dataset.sessionInto);
    const file = input.files && input.files[0];
    if (!target) return;
    target.value = '';
    input.setCustomValidity('');
    if (!file) return;
    if (file.size > Number(input.dataset.maxBytes)) {
      input.setCustomValidity('The session file is over 1 MB');
      input.reportValidity();
      return;
    }
    target.value = await file.text();
  });

  // ---- Times: the server writes UTC; show them in the reader's zone.
  const localFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  function localizeTimes(root) {
    for (const el of root.querySelectorAll('time[data-local]')) {
      const date = new Date(el.getAttribute('datetime'));
      if (!Number.isNaN(date.getTime())) {
        el.textContent = localFormat.format(date);
        el.title = el.getAttribute('datetime');
      }
    }
  }

  // ---- Live meeting view: <section data-events="/meetings/:id/events">
  function startLive(section) {
    const $ = (id) => document.getElementById(id);
    const segments = $('segments');
    const partials = $('partials');
    const state = $('live-state');
    const statusBadge = $('meeting-status');
    const count = $('participant-count');
    const participants = $('participants');
    const documentLink = $('document-link');
    const stopForm = $('stop-form');
    const partialById = new Map();
    const names = new Set();
    const labels = JSON.parse(section.dataset.statusLabels || '{}');
    const source = new EventSource(section.dataset.events);

    const payloadOf = (event) => {
      try {
        return JSON.parse(event.data).payload || {};
      } catch {
        return {};
      }
    };
    const setState = (text) => {
      if (state) state.textContent = text;
    };
    const timeOf = (iso) => (typeof iso === 'string' && iso.length >= 19 ? iso.slice(11, 19) : '');
    // A line of the transcript or the chat: who, when (the time of day, UTC), what; text only, never markup.
    const spokenLine = (who, iso, said) => {
      const item = document.createElement('li');
      const name = document.createElement('strong');
      name.className = 'speaker';
      name.textContent = who;
      const at = document.createElement('time');
      at.className = 'muted';
      at.dateTime = iso || '';
      at.textContent = timeOf(iso);
      const text = document.createElement('p');
      text.textContent = said || '';
      item.append(name, document.createTextNode(' '), at, text);
      return item;
    };

    function showStatus(status) {
      const badge = document.createElement('span');
      badge.className = `badge status-${status}`;
      badge.dataset.status = status;
      badge.textContent = labels[status] || status;
      statusBadge.replaceChildren(badge);
    }

    function renderParticipants() {
      participants.replaceChildren(
        ...[...names].sort().map((name) => {
          const li = document.createElement('li');
          li.textContent = name;
          return li;
        }),
      );
    }

    function ended(status) {
      if (stopForm) stopForm.hidden = true;
      if (section.dataset.hasDocument === 'true') documentLink.hidden = false;
      for (const el of partialById.values()) el.remove();
      partialById.clear();
      // The recording may still be being stored (its recording_saved comes later): the page, reloaded, says how it is.
      const recording = document.getElementById('recording')
        ? ' Reload the page to see how its recording was stored.'
        : '';
      setState(
        (status === 'error'
          ? 'The meeting ended with an error. The transcript so far is kept.'
          : 'The meeting has ended.') + recording,
      );
      source.close();
    }

    const warningTexts = JSON.parse(section.dataset.warningTexts || '{}');
    source.addEventListener('warnings', (event) => {
      const box = $('caption-warnings');
      let warnings = [];
      try {
        warnings = JSON.parse(event.data).warnings || [];
      } catch {
        return;
      }
      box.textContent = warnings.map((w) => warningTexts[w] || w).join(' ');
      box.hidden = warnings.length === 0;
    });
    source.addEventListener('open', () => setState('Live: words appear as they are spoken.'));
    source.addEventListener('replayed', () => setState('Live: words appear as they are spoken.'));
    source.addEventListener('backlog-unavailable', () =>
      setState('Live, but earlier words could not be loaded. They are in the saved transcript.'),
    );

    source.addEventListener('caption_partial', (event) => {
      const p = payloadOf(event);
      const key = String(p.captionId || p.speaker || '');
      let line = partialById.get(key);
      if (!line) {
        line = document.createElement('p');
        line.className = 'partial';
        line.append(document.createElement('strong'), document.createTextNode(' '), document.createElement('span'));
        line.dataset.speaker = String(p.speaker || '');
        partialById.set(key, line);
        partials.append(line);
      }
      line.children[0].textContent = p.speaker || 'Someone';
      line.children[1].textContent = p.text || '';
    });

    source.addEventListener('segment_finalized', (event) => {
      const p = payloadOf(event);
      const item = spokenLine(p.speaker || 'Unknown speaker', p.timestamp, p.text);
      if (segments.classList.contains('seekable')) makeSeekable(item);
      segments.append(item);
      // The speaker's turn is final: its caption in progress is done.
      for (const [key, line] of partialById) {
        if (line.dataset.speaker === String(p.speaker || '')) {
          line.remove();
          partialById.delete(key);
        }
      }
    });

    source.addEventListener('meeting_status', (event) => {
      const status = String(payloadOf(event).status || '');
      if (!status) return;
      showStatus(status);
      if (status === 'ended' || status === 'error') ended(status);
    });

    const participantChange = (joined) => (event) => {
      const p = payloadOf(event);
      const name = p.name || p.participant || p.displayName;
      if (name) joined ? names.add(String(name)) : names.delete(String(name));
      if (typeof p.participantCount === 'number') count.textContent = String(p.participantCount);
      renderParticipants();
    };
    // Coaching: newest first; category, where it came from (the rules, or which model) and the message.
    const insights = $('insights');
    const coachLabels = JSON.parse(($('coaching') || section).dataset.coachLabels || '{}');
    source.addEventListener('coach_insight', (event) => {
      const p = payloadOf(event);
      if (!insights || !p.message) return;
      const item = document.createElement('li');
      item.className = 'insight';
      item.dataset.category = String(p.category || '');
      item.dataset.source = p.source === 'model' ? 'model' : 'rules';
      const category = document.createElement('strong');
      category.textContent = coachLabels[p.category] || String(p.category || 'Insight');
      const from = document.createElement('small');
      from.className = 'muted';
      from.textContent = p.source === 'model' ? `AI${p.model ? ` (${p.model})` : ''}` : 'Rules';
      const message = document.createElement('p');
      message.textContent = String(p.message);
      item.append(category, document.createTextNode(' '), from, message);
      insights.prepend(item);
      $('no-insights').hidden = true;
    });

    // The meeting chat (meeting-chat.ts): each message once, in order, the bot's marked.
    const chatList = $('chat-messages');
    source.addEventListener('chat_message', (event) => {
      const p = payloadOf(event);
      if (!chatList) return;
      const item = spokenLine(p.sender || 'Someone', p.timestamp, p.text);
      if (p.fromBot) item.className = 'from-bot';
      chatList.append(item);
    });

    source.addEventListener('participant_joined', participantChange(true));
    source.addEventListener('participant_left', participantChange(false));
    source.addEventListener('document_saved', () => {
      if (documentLink) documentLink.hidden = false;
    });
    source.addEventListener('done', () => source.close());
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) setState('Live updates stopped. Reload the page to try again.');
      else setState('Connection lost, reconnecting…');
    });
  }

  // ---- Recording player: <figure data-started-at> with <audio id="recording-player">, and the
  // transcript's <ol class="segments seekable">. A segment plays from its offset in the file: its
  // timestamp minus the instant the recording's timeline starts.
  function makeSeekable(item) {
    item.tabIndex = 0;
    item.title = 'Play the recording from here';
  }

  function offsetOf(item) {
    const figure = document.getElementById('recording');
    const at = item.querySelector('time[datetime]');
    if (!figure || !at) return null;
    const offset = (Date.parse(at.getAttribute('datetime')) - Date.parse(figure.dataset.startedAt)) / 1000;
    return Number.isFinite(offset) ? Math.max(0, offset) : null;
  }

  function seekTo(item) {
    const player = document.getElementById('recording-player');
    const offset = offsetOf(item);
    if (!player || offset === null) return;
    // Past the end of what the player has (a live recording loaded earlier): its end.
    player.currentTime = Number.isFinite(player.duration) ? Math.min(offset, player.duration) : offset;
    for (const playing of document.querySelectorAll('ol.segments li.playing')) playing.classList.remove('playing');
    item.classList.add('playing');
    const started = player.play();
    if (started && typeof started.catch === 'function') started.catch(() => {});
  }

  function seekableItem(target) {
    if (!(target instanceof Element) || target.closest('a, button')) return null;
    return target.closest('ol.segments.seekable > li');
  }

  document.addEventListener('click', (event) => {
    const item = seekableItem(event.target);
    // A click that ends a text selection is for copying, not playing.
    if (item && String(window.getSelection() || '') === '') seekTo(item);
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    const item = seekableItem(event.target);
    if (!item || event.target !== item) return;
    event.preventDefault();
    seekTo(item);
  });

  function init() {
    localizeTimes(document);
    for (const item of document.querySelectorAll('ol.segments.seekable > li')) makeSeekable(item);
    const live = document.querySelector('section[data-events]');
    if (live) startLive(live);
    document.body.addEventListener('htmx:afterSwap', (event) => localizeTimes(event.target));
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
