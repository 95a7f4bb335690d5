// wsx quick switcher (Ctrl/⌘+K, Korean initial consonants) and the composer's @ member picker.
//
// Both find names with one matcher: case-insensitive substring, where a query letter that is a
// Hangul initial consonant (초성: ㄱ, ㅁ, …) also matches any syllable starting with it, so ㄱㅁㅇ
// and ㄱ민 find 김민아. Matches at the start of a name come first. The switcher lists the
// sidebar's channels and DMs and the workspace's members (the people JSON the page points to);
// the picker lists the members. Pages work without this script: the sidebar stays the way to
// move, and a mention is typed in full.
'use strict';

(function () {
  // ---- matching (pure: exposed as window.wsxSwitcher for tests) ------------------------

  const INITIALS = 'ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ';
  // Final consonants (종성) in syllable order; index 0 is none.
  const FINALS = ['', 'ㄱ', 'ㄲ', 'ㄳ', 'ㄴ', 'ㄵ', 'ㄶ', 'ㄷ', 'ㄹ', 'ㄺ', 'ㄻ', 'ㄼ', 'ㄽ', 'ㄾ', 'ㄿ', 'ㅀ',
    'ㅁ', 'ㅂ', 'ㅄ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅊ', 'ㅋ', 'ㅌ', 'ㅍ', 'ㅎ'];
  const SYLLABLE_FIRST = 0xac00;
  const SYLLABLE_LAST = 0xd7a3;

  /** A Hangul syllable's parts: initial (index into INITIALS), vowel and final indices. */
  function syllable(ch) {
    const code = ch.codePointAt(0) - SYLLABLE_FIRST;
    if (code < 0 || code > SYLLABLE_LAST - SYLLABLE_FIRST) return null;
    return { initial: Math.floor(code / 588), vowel: Math.floor((code % 588) / 28), final: code % 28 };
  }

  /** The initial consonant of a Hangul syllable (김 → ㄱ), or null for any other character. */
  function initialOf(ch) {
    const parts = syllable(ch);
    return parts ? INITIALS[parts.initial] : null;
  }

  /** Lower case, composed (NFC: a name typed on macOS may arrive decomposed), and leading
   *  conjoining initials (U+1100…) written as the compatibility letters a keyboard types. */
  function normalize(text) {
    return Array.from(String(text).normalize('NFC').toLowerCase(), (ch) => {
      const code = ch.codePointAt(0);
      return code >= 0x1100 && code <= 0x1112 ? INITIALS[code - 0x1100] : ch;
    });
  }

  /** Whether query letter `q` matches text letter `t`: the same letter, or an initial consonant
   *  and a syllable that starts with it. */
  function letterMatches(q, t) {
    return q === t || (INITIALS.includes(q) && initialOf(t) === q);
  }

  /** How many text letters from `start` the query matches (0: no match). The query's last
   *  letter may be a syllable still being typed: 미 matches 민 (its final not typed yet), and
   *  민 matches 미 followed by a syllable starting with ㄴ (an IME shows 김민 on the way to
   *  김미나). */
  function matchAt(text, query, start) {
    let i = start;
    for (let k = 0; k < query.length; k++) {
      if (i >= text.length) return 0;
      const q = query[k];
      const t = text[i];
      if (letterMatches(q, t)) { i++; continue; }
      if (k !== query.length - 1) return 0;
      const typed = syllable(q);
      const shown = syllable(t);
      if (!typed || !shown || typed.initial !== shown.initial || typed.vowel !== shown.vowel) return 0;
      if (typed.final === 0) return i + 1 - start;
      const carried = FINALS[typed.final];
      if (shown.final === 0 && i + 1 < text.length && INITIALS.includes(carried) && initialOf(text[i + 1]) === carried) {
        return i + 2 - start;
      }
      return 0;
    }
    return i - start;
  }

  /**
   * Where `query` matches `text`: `{rank, start, length}` or null. rank 0 is a match at the
   * start, 1 at the start of a later word, 2 anywhere else. An empty query matches everything
   * (rank 0, length 0).
   */
  function match(text, query) {
    const t = normalize(text);
    const q = normalize(query).filter((ch) => !/\s/.test(ch));
    if (!q.length) return { rank: 0, start: 0, length: 0 };
    let best = null;
    for (let start = 0; start < t.length; start++) {
      if (/\s/.test(t[start])) continue;
      const length = matchAt(t, q, start);
      if (!length) continue;
      const rank = start === 0 ? 0 : /[\s\-_.·(]/.test(t[start - 1]) ? 1 : 2;
      if (!best || rank < best.rank) best = { rank, start, length };
      if (rank === 0) break;
    }
    return best;
  }

  /** The items whose `text(item)` matches, best first: by rank, then by how recently the
   *  person opened them (`recency(item)`: a smaller number is more recent; ㅇㅂ finds 일반,
   *  opened every day, before 이비), then in their order. */
  function filter(items, query, text = (item) => item, recency = () => Infinity) {
    const found = [];
    items.forEach((item, order) => {
      const m = match(text(item), query);
      if (m) found.push({ item, rank: m.rank, order, recent: recency(item) });
    });
    found.sort((a, b) => a.rank - b.rank || a.recent - b.recent || a.order - b.order);
    return found.map((entry) => entry.item);
  }

  window.wsxSwitcher = { match, filter, initialOf };

  // ---- shared ---------------------------------------------------------------------------

  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content;
  const label = (name) => meta('label-' + name) || '';
  const workspaceId = meta('workspace-id');
  if (!workspaceId) return;

  const viewerId = meta('viewer-id');

  // The rooms this browser opened lately, newest first (this page's room is the newest), for
  // ranking the switcher's equal matches.
  const RECENT_ROOMS = `wsx-recent-rooms:${viewerId}`;
  function recentRooms() {
    try { return JSON.parse(localStorage.getItem(RECENT_ROOMS) || '[]').filter((href) => typeof href === 'string'); } catch (_) { return []; }
  }
  if (document.querySelector('section.room[data-room]:not([data-thread-root])')) {
    const here = location.origin + location.pathname;
    try { localStorage.setItem(RECENT_ROOMS, JSON.stringify([here, ...recentRooms().filter((h) => h !== here)].slice(0, 30))); } catch (_) { /* off */ }
  }
  let people = null; // a promise of the workspace's members, the viewer last
  function loadPeople() {
    const url = meta('people-url');
    if (!people) {
      const request = url
        ? fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
          .then((response) => (response.ok ? response.json() : []))
          .then((list) => (Array.isArray(list) ? list : []))
          .then((list) => list.filter((p) => String(p?.id) !== viewerId).concat(list.filter((p) => String(p?.id) === viewerId)))
          .catch(() => [])
        : Promise.resolve([]);
      people = request;
      // A failure is retried next time.
      request.then((list) => { if (!list.length && people === request) people = null; });
    }
    return people;
  }
  // Members and nicknames change: the next look asks again.
  document.addEventListener('wsx:live', (event) => {
    const type = event.detail?.type;
    if (type === 'workspace.member_added' || type === 'workspace.member_removed' || type === 'user.updated') people = null;
  });

  let ids = 0;
  const nextId = (prefix) => `${prefix}-${++ids}`;

  function element(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text) el.textContent = text;
    return el;
  }

  /** A person's picture, or the first letter of their name in its circle. */
  /** A person's photo, else their letters on their colour as the server draws them (`face`:
   *  `initials` and `tone`, from the people JSON or the sidebar). */
  function avatar(url, name, face) {
    if (url) {
      const img = element('img', 'avatar switcher-avatar');
      img.src = url;
      img.alt = '';
      img.width = 24;
      img.height = 24;
      return img;
    }
    const tone = face?.tone ?? '';
    const initial = element('span', 'avatar switcher-avatar' + (tone !== '' ? ` avatar-tone-${tone}` : ''),
      face?.initials || Array.from(name.trim())[0] || '?');
    initial.setAttribute('aria-hidden', 'true');
    return initial;
  }

  /** `name` with the matched letters marked. */
  function highlighted(name, query) {
    const wrap = element('span', 'switcher-name');
    const m = query ? match(name, query) : null;
    const letters = Array.from(name.normalize('NFC'));
    if (!m || !m.length) { wrap.textContent = name; return wrap; }
    const before = letters.slice(0, m.start).join('');
    const hit = letters.slice(m.start, m.start + m.length).join('');
    const after = letters.slice(m.start + m.length).join('');
    if (before) wrap.append(before);
    wrap.append(element('mark', 'switcher-hit', hit));
    if (after) wrap.append(after);
    return wrap;
  }

  /** A magnifying glass (an SVG built node by node: no markup is parsed). */
  function magnifier() {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'switcher-icon');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('width', '18');
    svg.setAttribute('height', '18');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    const circle = document.createElementNS(ns, 'circle');
    for (const [name, value] of [['cx', '10.5'], ['cy', '10.5'], ['r', '6.5']]) circle.setAttribute(name, value);
    const handle = document.createElementNS(ns, 'path');
    handle.setAttribute('d', 'm15.5 15.5 5 5');
    for (const shape of [circle, handle]) {
      shape.setAttribute('fill', 'none');
      shape.setAttribute('stroke', 'currentColor');
      shape.setAttribute('stroke-width', '2');
      shape.setAttribute('stroke-linecap', 'round');
      svg.append(shape);
    }
    return svg;
  }

  /** Keeps the active option in view and tells assistive technology which it is. */
  function activate(control, listbox, options, index) {
    options.forEach((option, i) => option.setAttribute('aria-selected', i === index ? 'true' : 'false'));
    const active = options[index];
    if (active) {
      control.setAttribute('aria-activedescendant', active.id);
      active.scrollIntoView({ block: 'nearest' });
    } else {
      control.removeAttribute('aria-activedescendant');
    }
  }

  const isMac = /mac|iphone|ipad|ipod/i.test(navigator.userAgentData?.platform || navigator.platform || '');

  // ---- quick switcher -------------------------------------------------------------------

  let switcher = null;

  /** Channels and DMs from the sidebar, then members without a DM there. */
  function destinations(members) {
    const items = [];
    const seen = new Set();
    for (const link of document.querySelectorAll('#sidebar-channels a[data-room-link]')) {
      const name = link.querySelector('.room-name')?.textContent.trim() || '';
      if (!name || seen.has(link.href)) continue;
      seen.add(link.href);
      items.push({ kind: 'channel', name, href: link.href, current: link.getAttribute('aria-current') === 'page' });
    }
    for (const link of document.querySelectorAll('#sidebar-dms a[data-room-link]')) {
      const name = link.querySelector('.room-name')?.textContent.trim() || '';
      if (!name || seen.has(link.href)) continue;
      seen.add(link.href);
      const picture = link.querySelector('img.avatar')?.getAttribute('src') || '';
      // The sidebar's own avatar says the letters and colour (a group's says its size).
      const drawn = link.querySelector('span.avatar');
      const face = drawn ? { initials: drawn.textContent, tone: /avatar-tone-(\d+)/.exec(drawn.className)?.[1] } : null;
      items.push({ kind: 'dm', name, href: link.href, avatar: picture, face, current: link.getAttribute('aria-current') === 'page' });
    }
    for (const person of members) {
      if (!person?.dm || !person.nickname) continue;
      const href = new URL(person.dm, location.href).href;
      if (seen.has(href)) continue;
      seen.add(href);
      items.push({ kind: 'member', name: person.nickname, href, avatar: person.avatar || '', face: person,
                   current: href === location.href });
    }
    return items;
  }

  function buildSwitcher() {
    const dialog = element('dialog', 'switcher');
    const titleId = nextId('switcher-title');
    const listId = nextId('switcher-list');
    dialog.setAttribute('aria-labelledby', titleId);
    const title = element('label', 'visually-hidden', label('switchertitle'));
    title.id = titleId;
    const input = element('input', 'switcher-input');
    input.id = nextId('switcher-input');
    title.htmlFor = input.id;
    input.type = 'text';
    input.autocomplete = 'off';
    input.spellcheck = false;
    input.placeholder = label('switcherplaceholder');
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'true');
    input.setAttribute('aria-controls', listId);
    const field = element('div', 'switcher-field');
    const icon = magnifier();
    field.append(icon, input);
    const listbox = element('ul', 'switcher-list');
    listbox.id = listId;
    listbox.setAttribute('role', 'listbox');
    listbox.setAttribute('aria-labelledby', titleId);
    const empty = element('p', 'switcher-empty', label('switcherempty'));
    empty.setAttribute('role', 'status');
    empty.hidden = true;
    dialog.append(title, field, listbox, empty);
    document.body.append(dialog);

    const state = { dialog, input, listbox, empty, items: [], shown: [], options: [], active: 0, members: [], opener: null };

    const render = () => {
      const query = input.value;
      state.items = destinations(state.members);
      const recent = recentRooms();
      const found = filter(state.items, query, (item) => item.name, (item) => {
        const at = recent.indexOf(item.href);
        return at < 0 ? Infinity : at;
      });
      // Where one already is goes last: one opens the switcher to go elsewhere.
      state.shown = found.filter((item) => !item.current).concat(found.filter((item) => item.current)).slice(0, 50);
      listbox.replaceChildren();
      state.options = state.shown.map((item) => {
        const option = element('li', 'switcher-option');
        option.id = nextId('switcher-option');
        option.setAttribute('role', 'option');
        option.dataset.kind = item.kind;
        option.dataset.href = item.href;
        if (item.kind === 'channel') {
          const sigil = element('span', 'switcher-sigil', '#');
          sigil.setAttribute('aria-hidden', 'true');
          option.append(sigil);
        } else {
          option.append(avatar(item.avatar, item.name, item.face));
        }
        option.append(highlighted(item.name, query));
        if (item.current) option.classList.add('switcher-current');
        listbox.append(option);
        return option;
      });
      state.active = 0;
      empty.hidden = state.options.length > 0;
      listbox.hidden = state.options.length === 0;
      input.setAttribute('aria-expanded', state.options.length ? 'true' : 'false');
      activate(input, listbox, state.options, state.active);
    };
    state.render = render;

    /** Closes the switcher and puts focus back where it was, at once (the dialog's close
     *  event comes a moment later). */
    const tidy = () => {
      document.documentElement.classList.remove('switcher-open');
      if (state.opener?.isConnected) state.opener.focus({ preventScroll: true });
      state.opener = null;
    };
    const shut = () => {
      if (dialog.open) dialog.close();
      tidy();
    };
    state.shut = shut;

    const go = (index) => {
      const item = state.shown[index];
      if (!item) return;
      shut();
      location.assign(item.href);
    };

    let composing = false;
    input.addEventListener('compositionstart', () => { composing = true; });
    input.addEventListener('compositionend', () => { composing = false; });
    input.addEventListener('input', render);
    input.addEventListener('keydown', (event) => {
      if (event.isComposing || composing || event.keyCode === 229) return;
      const count = state.options.length;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        if (!count) return;
        state.active = (state.active + (event.key === 'ArrowDown' ? 1 : -1) + count) % count;
        activate(input, listbox, state.options, state.active);
      } else if (event.key === 'Enter') {
        event.preventDefault();
        go(state.active);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        shut();
      } else if (event.key === 'Tab') {
        event.preventDefault(); // the box is all there is to focus in the dialog
      }
    });
    listbox.addEventListener('mousedown', (event) => event.preventDefault()); // focus stays in the box
    listbox.addEventListener('click', (event) => {
      const option = event.target.closest('[role=option]');
      if (option) go(state.options.indexOf(option));
    });
    listbox.addEventListener('mousemove', (event) => {
      const index = state.options.indexOf(event.target.closest('[role=option]'));
      if (index >= 0 && index !== state.active) {
        state.active = index;
        activate(input, listbox, state.options, index);
      }
    });
    dialog.addEventListener('click', (event) => { if (event.target === dialog) shut(); });
    // Other ways a dialog closes (a phone's back gesture): the same tidying up.
    dialog.addEventListener('close', () => { if (!dialog.open) tidy(); });
    return state;
  }

  function openSwitcher() {
    if (!switcher) switcher = buildSwitcher();
    const { dialog, input } = switcher;
    if (dialog.open) { input.focus(); input.select(); return; }
    switcher.opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body
      ? document.activeElement : null;
    input.value = '';
    switcher.render();
    document.documentElement.classList.add('switcher-open');
    dialog.showModal();
    input.focus();
    loadPeople().then((members) => {
      if (!dialog.open) return;
      switcher.members = members;
      const active = switcher.shown[switcher.active]?.href;
      switcher.render();
      // Keep what was chosen with the arrows while the members arrived.
      const keep = switcher.shown.findIndex((item) => item.href === active);
      if (keep > 0) { switcher.active = keep; activate(switcher.input, switcher.listbox, switcher.options, keep); }
    });
  }

  document.addEventListener('keydown', (event) => {
    const modifier = isMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
    // The K key by its letter, or by its place when it types no Latin letter (a Korean layout
    // in Hangul mode reports ㅏ).
    const key = (event.key || '').toLowerCase();
    const isK = key === 'k' || (!/^[a-z]$/.test(key) && event.code === 'KeyK');
    if (!modifier || event.altKey || event.shiftKey || !isK) return;
    // Another dialog (the lightbox) keeps the keyboard.
    const other = Array.from(document.querySelectorAll('dialog[open]')).some((d) => d !== switcher?.dialog);
    if (other) return;
    event.preventDefault();
    if (switcher?.dialog.open) switcher.shut();
    else openSwitcher();
  });

  // A button beside the sidebar's search opens it too (touch screens have no Ctrl+K).
  const search = document.querySelector('#sidebar .sidebar-search');
  if (search) {
    const button = element('button', 'switcher-button');
    button.type = 'button';
    button.append(element('span', 'switcher-button-label', label('switchertitle')));
    const keys = element('kbd', 'switcher-keys', isMac ? '⌘K' : 'Ctrl K');
    keys.setAttribute('aria-hidden', 'true');
    button.append(keys);
    button.setAttribute('aria-keyshortcuts', isMac ? 'Meta+K' : 'Control+K');
    button.setAttribute('aria-haspopup', 'dialog');
    button.addEventListener('click', openSwitcher);
    search.before(button);
  }

  // ---- @ member picker in the composer --------------------------------------------------

  const composer = document.getElementById('composer');
  const textarea = composer?.querySelector('textarea[name=content]');
  if (!textarea) return;

  const listId = nextId('mention-list');
  const picker = element('ul', 'mention-picker');
  picker.id = listId;
  picker.setAttribute('role', 'listbox');
  picker.setAttribute('aria-label', label('mentionpicker'));
  picker.hidden = true;
  composer.append(picker);
  textarea.setAttribute('role', 'combobox');
  textarea.setAttribute('aria-autocomplete', 'list');
  textarea.setAttribute('aria-haspopup', 'listbox');
  textarea.setAttribute('aria-expanded', 'false');
  textarea.setAttribute('aria-controls', listId);

  const pick = { open: false, start: -1, end: -1, shown: [], options: [], active: 0, dismissed: -1, members: [] };
  let composing = false;
  let justComposed = false;

  /** The `@query` that ends at the caret: `{start, query}` (start: the index of the @) or null.
   *  An @ counts at the start or after whitespace (so an email address opens nothing). */
  function mentionAtCaret() {
    if (textarea.selectionStart !== textarea.selectionEnd) return null;
    const before = textarea.value.slice(0, textarea.selectionStart);
    const found = /(^|\s)@([^\s@]{0,40})$/.exec(before);
    if (!found) return null;
    return { start: before.length - found[2].length - 1, query: found[2] };
  }

  function closePicker() {
    if (!pick.open) return;
    pick.open = false;
    picker.hidden = true;
    picker.replaceChildren();
    pick.options = [];
    textarea.setAttribute('aria-expanded', 'false');
    textarea.removeAttribute('aria-activedescendant');
  }

  function renderPicker(found) {
    pick.shown = filter(pick.members, found.query, (person) => person.nickname).slice(0, 8);
    if (!pick.shown.length) { closePicker(); return; }
    picker.replaceChildren();
    pick.options = pick.shown.map((person) => {
      const option = element('li', 'mention-option');
      option.id = nextId('mention-option');
      option.setAttribute('role', 'option');
      option.append(avatar(person.avatar, person.nickname, person), highlighted(person.nickname, found.query));
      picker.append(option);
      return option;
    });
    pick.start = found.start;
    pick.active = Math.min(pick.active, pick.options.length - 1);
    pick.open = true;
    picker.hidden = false;
    textarea.setAttribute('aria-expanded', 'true');
    activate(textarea, picker, pick.options, pick.active);
  }

  /** Opens, filters or closes the picker after the text or the caret changed. */
  function update() {
    const found = mentionAtCaret();
    if (!found) { pick.dismissed = -1; closePicker(); return; }
    if (found.start === pick.dismissed) return; // closed with Esc: stays closed for this @
    if (!pick.open || found.start !== pick.start) pick.active = 0;
    const wanted = found.start;
    loadPeople().then((members) => {
      pick.members = members;
      const now = mentionAtCaret();
      if (now && now.start === wanted && now.start !== pick.dismissed) renderPicker(now);
    });
  }

  function insert(index) {
    const person = pick.shown[index];
    const found = mentionAtCaret();
    if (!person || !found) { closePicker(); return; }
    const end = textarea.selectionStart;
    textarea.setRangeText(`@${person.nickname} `, found.start, end, 'end');
    attached = { space: found.start + 1 + person.nickname.length };
    closePicker();
    // Others listening (the height, a saved draft) see the change as typing.
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
    textarea.focus();
  }

  // A picked name is followed by a space; when the word typed after it is an honorific or a
  // particle (님, 씨, 께, 에게, 은, 는, …) it belongs to the name, and the space goes once the
  // word is done: `@김민아님`, not `@김민아 님`. Lone 이, 가, 도 are words too often to count.
  const ATTACHED = /^(?:(?:님|씨)(?:께서|께|에게|한테|은|는|이|가|을|를|의|도|와|과|이랑|랑|하고|요)?|께서|께|에게|에게서|한테|한테서|은|는|을|를|의|와|과|랑|이랑|하고)$/;
  let attached = null; // { space: the index of the space after a picked name }
  /** Settles the space after a picked name once the next word is typed (`final`: sending now). */
  function settleAttachment(final) {
    if (!attached || composing) return;
    const { space } = attached;
    const value = textarea.value;
    if (value[space] !== ' ') { attached = null; return; }
    const rest = value.slice(space + 1);
    const word = /^[\uac00-\ud7a3]*/.exec(rest)[0];
    if (!word) { if (rest || final) attached = null; return; }
    if (word.length === rest.length && !final) return; // the word is still being typed
    attached = null;
    if (!ATTACHED.test(word)) return;
    textarea.setRangeText('', space, space + 1, 'preserve');
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
  }
  textarea.addEventListener('input', () => settleAttachment(false));
  composer.addEventListener('submit', () => settleAttachment(true), true);

  // Asked for before the first @, so the list is there when it is typed.
  textarea.addEventListener('focus', () => { loadPeople(); });
  textarea.addEventListener('compositionstart', () => { composing = true; });
  textarea.addEventListener('compositionend', () => {
    composing = false;
    // Some browsers send the Enter that ends a Hangul syllable right after compositionend.
    justComposed = true;
    setTimeout(() => { justComposed = false; }, 0);
    update();
    settleAttachment(false);
  });
  // While composing too: a Korean name filters as it is typed.
  textarea.addEventListener('input', update);
  textarea.addEventListener('click', update);
  textarea.addEventListener('keyup', (event) => {
    if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) update();
  });
  textarea.addEventListener('blur', () => closePicker());

  // Capture phase on the form: runs before the text area's own listeners (chat.js sends on
  // Enter), and stops them when the picker takes the key.
  composer.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target === textarea && !pick.open) settleAttachment(true);
    if (!pick.open || event.target !== textarea) return;
    if (event.isComposing || composing || event.keyCode === 229) return;
    const count = pick.options.length;
    const take = () => { event.preventDefault(); event.stopImmediatePropagation(); };
    const plain = !event.altKey && !event.ctrlKey && !event.metaKey;
    if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && plain && !event.shiftKey) {
      take();
      pick.active = (pick.active + (event.key === 'ArrowDown' ? 1 : -1) + count) % count;
      activate(textarea, picker, pick.options, pick.active);
    } else if ((event.key === 'Enter' || event.key === 'Tab') && plain && !event.shiftKey) {
      if (justComposed) { take(); return; } // the Enter that ended a syllable picks nothing
      take();
      insert(pick.active);
    } else if (event.key === 'Escape') {
      take();
      pick.dismissed = pick.start;
      closePicker();
    }
  }, true);

  picker.addEventListener('mousedown', (event) => event.preventDefault()); // the text keeps focus
  picker.addEventListener('click', (event) => {
    const index = pick.options.indexOf(event.target.closest('[role=option]'));
    if (index >= 0) insert(index);
  });
  picker.addEventListener('mousemove', (event) => {
    const index = pick.options.indexOf(event.target.closest('[role=option]'));
    if (index >= 0 && index !== pick.active) {
      pick.active = index;
      activate(textarea, picker, pick.options, index);
    }
  });
})();
