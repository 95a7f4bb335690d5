// wsx reactions: toggling a reaction in place, a picker with search, and live updates.
//
// Without this script every reaction under a message is a button of a plain form, and a
// message's "React" link opens a page with the common reactions. With it, a button toggles the
// viewer's reaction without leaving the page, and "React" opens a picker (a modal <dialog>):
// the viewer's recently used emoji, the common ones, and every emoji by group, searched by
// English and Korean names (`:thumbsup:`, 좋아요) from the table the server validates against
// (`Public/emoji.tsv`). Every tab shows `reactions.changed` events as they come, each marking
// its viewer's own reactions.
'use strict';

(function () {
  const room = document.querySelector('[data-room]');
  const list = document.getElementById('message-list');
  if (!room || !list) return;

  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content || '';
  const label = (name) => meta('label-' + name);
  const viewerId = meta('viewer-id');
  const csrf = () => meta('csrf-token');
  const korean = document.documentElement.lang === 'ko';
  const RECENT_KEY = 'wsx-recent-emoji';
  const COMMON = ['👍', '❤️', '😂', '🎉', '😮', '🙏', '👀', '✅'];

  const reactURL = (id) => room.dataset.reactUrl?.replace(room.dataset.idSlot, id);

  function element(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  // ---- the reactions under a message ------------------------------------------------------

  /** Who reacted, as the server writes it: the first twenty names, then how many more. */
  function who(names) {
    const shown = names.slice(0, 20).join(', ');
    return names.length > 20 ? `${shown} +${names.length - 20}` : shown;
  }

  /** Draws a message's reactions as they are now, cloned from the page's `tpl-reactions`
   *  (`Templates/reactions.mustache`: the bar with one reaction, filled in for each). */
  function show(messageId, groups) {
    const message = document.getElementById('m-' + messageId);
    if (!message) return;
    const old = message.querySelector('form.reactions');
    if (!groups.length) { old?.remove(); return; }
    const form = window.wsxTemplate('reactions', messageId);
    if (!form) return;
    const chip = form.querySelector('button.reaction');
    chip.remove();
    if (old) form.action = old.action; // a reader who is no member keeps the page's own form
    const outOfReach = message.tabIndex === -1; // the list's roving Tab stop is elsewhere
    for (const group of groups) {
      const mine = group.userIds.map(String).includes(viewerId);
      const button = chip.cloneNode(true);
      button.classList.toggle('reaction-mine', mine);
      button.value = group.emoji;
      button.setAttribute('aria-pressed', mine ? 'true' : 'false');
      const names = who(group.names);
      button.setAttribute('aria-label', `${group.emoji} ${group.userIds.length}: ${names}`);
      button.dataset.who = names;
      button.firstChild.textContent = group.emoji + ' ';
      button.querySelector('.reaction-count').textContent = String(group.userIds.length);
      if (outOfReach) button.tabIndex = -1;
      form.append(button);
    }
    if (old) {
      // Keep focus on the button that was pressed.
      const focused = document.activeElement?.closest?.('form.reactions') === old ? document.activeElement.value : null;
      old.replaceWith(form);
      if (focused) [...form.querySelectorAll('button')].find((b) => b.value === focused)?.focus();
    } else {
      const actions = message.querySelector('.message-actions, .edit-form');
      if (actions) actions.before(form); else message.querySelector('.message-main')?.append(form);
    }
  }

  function problem(message, text) {
    message.querySelector('.reaction-error')?.remove();
    const note = element('p', 'field-error reaction-error', text);
    note.setAttribute('role', 'alert');
    (message.querySelector('form.reactions') || message.querySelector('.message-actions'))?.after(note);
    setTimeout(() => note.remove(), 6000);
  }

  /** Toggles the viewer's reaction; the answer draws it at once, the event draws it everywhere. */
  async function toggle(messageId, emoji) {
    const url = reactURL(messageId);
    const message = document.getElementById('m-' + messageId);
    if (!url || !message) return;
    const body = new URLSearchParams({ emoji, _csrf: csrf() });
    const response = await fetch(url, {
      method: 'POST', body, credentials: 'same-origin',
      headers: { Accept: 'application/json', 'X-CSRF-Token': csrf() },
    }).catch(() => null);
    const reply = response ? await response.json().catch(() => ({})) : {};
    if (response?.ok) {
      show(messageId, reply.reactions || []);
      remember(emoji);
    } else {
      problem(message, reply.error || response?.statusText || label('messagenotsent'));
    }
  }

  list.addEventListener('submit', (event) => {
    const form = event.target.closest('form.reactions');
    const message = form?.closest('li.message');
    if (!form || !message || !event.submitter?.value || !room.dataset.reactUrl) return;
    event.preventDefault();
    toggle(message.dataset.message, event.submitter.value);
  });

  list.addEventListener('click', (event) => {
    const link = event.target.closest('a.message-react');
    const message = link?.closest('li.message');
    if (!link || !message || typeof HTMLDialogElement !== 'function') return;
    event.preventDefault();
    openPicker(message.dataset.message, link);
  });

  document.addEventListener('wsx:live', (event) => {
    const { type, data } = event.detail;
    if (type === 'reactions.changed' && String(data.roomId) === room.dataset.room) show(data.messageId, data.reactions || []);
  });

  // ---- recently used ----------------------------------------------------------------------

  function recent() {
    try { return JSON.parse(localStorage.getItem(RECENT_KEY) || '[]').filter((e) => typeof e === 'string'); } catch (_) { return []; }
  }

  function remember(emoji) {
    const list = [emoji, ...recent().filter((e) => e !== emoji)].slice(0, 16);
    try { localStorage.setItem(RECENT_KEY, JSON.stringify(list)); } catch (_) { /* storage off */ }
  }

  // ---- the table ------------------------------------------------------------------------

  let table = null;
  function loadTable() {
    if (table) return table;
    table = fetch(room.dataset.emojiUrl, { credentials: 'same-origin' })
      .then((response) => (response.ok ? response.text() : Promise.reject(new Error(response.statusText))))
      .then(parseTable)
      .catch(() => { table = null; return { entries: [], groups: [] }; });
    return table;
  }

  /** Lines of `emoji, group, English name, English keywords, Korean name, Korean keywords`. */
  function parseTable(text) {
    const entries = [];
    let groups = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('# groups:')) groups = line.slice(9).trim().split('|');
      if (!line || line.startsWith('# ')) continue; // comments; `#️⃣` is an emoji
      const [emoji, group, en, enWords, ko, koWords] = line.split('\t');
      const words = [en, ...(enWords || '').split('|'), ko, ...(koWords || '').split('|')]
        .filter(Boolean).map((word) => word.toLowerCase());
      entries.push({
        emoji, group: Number(group), name: (korean ? ko : en) || en, words,
        search: words.join('\n'),
        toned: /[\u{1F3FB}-\u{1F3FF}]/u.test(emoji),
      });
    }
    const local = label('emojigroups').split('|');
    return { entries, groups: local.length === groups.length ? local : groups };
  }

  /** Entries whose names or keywords hold every word of the query (`:thumbs_up:` works too),
   *  best first: the whole query as a name or keyword, then words that begin one, then the rest. */
  function search(entries, query) {
    const whole = query.toLowerCase().replace(/:/g, ' ').trim().replace(/\s+/g, ' ');
    const words = whole.split(' ').filter(Boolean);
    if (!words.length) return null;
    const found = [];
    entries.forEach((entry, order) => {
      if (entry.toned || !words.every((word) => entry.search.includes(word))) return;
      let score = entry.words.includes(whole) ? 0 : 2;
      if (score && words.every((word) => entry.words.some((w) => w.startsWith(word) || w.includes(' ' + word)))) score = 1;
      found.push({ entry, score, order });
    });
    found.sort((a, b) => a.score - b.score || a.order - b.order);
    return found.slice(0, 160).map((hit) => hit.entry);
  }

  // ---- the picker -------------------------------------------------------------------------

  let dialog = null;
  let parts = null;
  let target = null; // the message reacted to
  let opener = null;

  function build() {
    dialog = element('dialog', 'emoji-picker');
    dialog.setAttribute('aria-label', label('reactionadd'));
    const head = element('div', 'emoji-picker-head');
    const input = element('input', 'emoji-search');
    input.type = 'search';
    input.autocomplete = 'off';
    input.placeholder = label('reactionsearch');
    input.setAttribute('aria-label', label('reactionsearch'));
    const close = element('button', 'emoji-picker-close');
    close.type = 'button';
    close.setAttribute('aria-label', label('reactionclose'));
    close.title = label('reactionclose');
    const glyph = element('span', '', '×');
    glyph.setAttribute('aria-hidden', 'true');
    close.append(glyph);
    head.append(input, close);
    const body = element('div', 'emoji-picker-body');
    const status = element('p', 'emoji-picker-status');
    status.setAttribute('role', 'status');
    dialog.append(head, body, status);
    document.body.append(dialog);
    parts = { input, body, status };

    close.addEventListener('click', () => dialog.close());
    // Esc closes from anywhere, the search box included (where Chromium would only clear it).
    dialog.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || event.isComposing) return;
      event.preventDefault();
      dialog.close();
    });
    dialog.addEventListener('click', (event) => { if (event.target === dialog) dialog.close(); });
    dialog.addEventListener('close', () => {
      const back = opener;
      opener = null;
      if (back?.isConnected) back.focus();
    });
    let pending = 0;
    input.addEventListener('input', () => {
      clearTimeout(pending);
      pending = setTimeout(fill, 80);
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.isComposing) {
        event.preventDefault();
        // What was typed counts, even when Enter comes before the list caught up.
        clearTimeout(pending);
        fill();
        parts.body.querySelector('button.emoji-choice')?.click();
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        focusChoice(parts.body.querySelector('button.emoji-choice'));
      }
    });
    body.addEventListener('click', (event) => {
      const choice = event.target.closest('button.emoji-choice');
      if (!choice) return;
      const id = target;
      dialog.close();
      toggle(id, choice.value);
    });
    body.addEventListener('keydown', (event) => moveFocus(event));
  }

  /** One Tab stop for all the emoji: ←/→/↑/↓ move between them. */
  function focusChoice(choice) {
    if (!choice) return;
    for (const other of parts.body.querySelectorAll('button.emoji-choice[tabindex="0"]')) other.tabIndex = -1;
    choice.tabIndex = 0;
    choice.focus();
  }

  function moveFocus(event) {
    const current = event.target.closest('button.emoji-choice');
    if (!current) return;
    const all = [...parts.body.querySelectorAll('button.emoji-choice')];
    const at = all.indexOf(current);
    const columns = Math.max(1, Math.round(current.parentElement.clientWidth / current.offsetWidth));
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, ArrowUp: at - columns, ArrowDown: at + columns, Home: 0, End: all.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    if (to < 0 && (event.key === 'ArrowUp' || event.key === 'ArrowLeft')) { parts.input.focus(); return; }
    focusChoice(all[Math.min(Math.max(to, 0), all.length - 1)]);
  }

  function section(title, entries) {
    const block = element('section', 'emoji-section');
    const heading = element('h3', 'emoji-section-title', title);
    const grid = element('div', 'emoji-grid');
    for (const entry of entries) {
      const button = element('button', 'emoji-choice', entry.emoji);
      button.type = 'button';
      button.value = entry.emoji;
      button.tabIndex = -1;
      button.title = entry.name;
      button.setAttribute('aria-label', entry.name);
      grid.append(button);
    }
    block.append(heading, grid);
    return block;
  }

  let loaded = { entries: [], groups: [] };
  function fill() {
    const { entries, groups } = loaded;
    const byEmoji = new Map(entries.map((entry) => [entry.emoji, entry]));
    const named = (emoji) => byEmoji.get(emoji) || { emoji, name: emoji };
    const found = search(entries, parts.input.value);
    parts.body.replaceChildren();
    parts.status.textContent = '';
    if (found) {
      if (found.length) parts.body.append(section(label('reactionsearch'), found));
      else parts.status.textContent = label('reactionnone');
    } else {
      const used = recent();
      if (used.length) parts.body.append(section(label('reactionrecent'), used.map(named)));
      parts.body.append(section(label('reactioncommon'), COMMON.map(named)));
      groups.forEach((name, index) => {
        const members = entries.filter((entry) => entry.group === index && !entry.toned);
        if (members.length && !/^component$|구성/i.test(name)) parts.body.append(section(name, members));
      });
    }
    const first = parts.body.querySelector('button.emoji-choice');
    if (first) first.tabIndex = 0;
  }

  async function openPicker(messageId, link) {
    if (!dialog) build();
    target = messageId;
    opener = link;
    parts.input.value = '';
    fill();
    dialog.showModal();
    parts.input.focus();
    loaded = await loadTable();
    if (dialog.open && target === messageId) fill();
  }
})();
