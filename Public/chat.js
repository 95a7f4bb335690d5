// wsx chat: the room page (composer, live messages, edit/delete), unread badges, local times
// and day separators, and notifications. Builds on app.js, which delivers every live event as
// a `wsx:live` DOM event exactly once per tab. Server fragments are our own escaped HTML and
// are parsed with createContextualFragment; user text only ever goes in through textContent.
'use strict';

(function () {
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content;
  const viewerId = meta('viewer-id');
  const lang = document.documentElement.lang || 'en';
  const csrf = () => meta('csrf-token');
  const room = document.querySelector('section.room');
  const list = document.getElementById('message-list');
  const currentRoom = room?.dataset.room || '';
  // A thread's page lists its root and replies; a room's page its timeline (no replies kept in
  // their thread).
  const threadRoot = room?.dataset.threadRoot || '';
  const workspaceId = meta('workspace-id');
  const label = (name) => room?.dataset['label' + name] || meta('label-' + name.toLowerCase()) || '';

  // ---- times and days -------------------------------------------------------------------

  const dayKey = (date) => `${date.getFullYear()}-${date.getMonth() + 1}-${date.getDate()}`;

  function dayLabel(date) {
    if (dayKey(date) === dayKey(new Date())) return label('Today') || date.toLocaleDateString(lang);
    return date.toLocaleDateString(lang, { year: 'numeric', month: 'long', day: 'numeric', weekday: 'short' });
  }

  /** Shows every <time> in the reader's time zone and language. */
  function localizeTimes(scope) {
    for (const time of scope.querySelectorAll('time[datetime]')) {
      const date = new Date(time.dateTime);
      if (isNaN(date)) continue;
      // A message's own time is shown under its day; a thread's last reply may be days later.
      const timeOnly = time.closest('.message') && (!time.closest('.thread-summary') || dayKey(date) === dayKey(new Date()));
      time.textContent = timeOnly
        ? date.toLocaleTimeString(lang, { hour: 'numeric', minute: '2-digit' })
        : date.toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
      time.title = date.toLocaleString(lang, { dateStyle: 'full', timeStyle: 'short' });
    }
  }

  /** Day separators by the reader's local day (the server's are by UTC), and messages shown
   *  under the one before them: the same author within five minutes, on the same day, with no
   *  line between (the server's rule, `MessageListRenderer.continues`). */
  function regroupDays() {
    if (!list) return;
    separateDays();
    let previous = null;
    for (const item of list.children) {
      if (!item.matches('li.message')) { previous = null; continue; }
      const continued = !!previous && previous.dataset.author === item.dataset.author && item.dataset.author !== '0'
        && !previous.classList.contains('message-deleted') && !item.classList.contains('message-deleted')
        && new Date(item.dataset.time) - new Date(previous.dataset.time) < 5 * 60 * 1000;
      item.classList.toggle('message-continued', continued);
      previous = item;
    }
  }

  function separateDays() {
    for (const separator of list.querySelectorAll('.day-separator')) separator.remove();
    let previous = '';
    for (const message of list.querySelectorAll('li.message')) {
      const date = new Date(message.dataset.time);
      if (isNaN(date)) continue;
      const key = dayKey(date);
      if (key === previous) continue;
      previous = key;
      const separator = window.wsxTemplate('day-separator');
      if (!separator) return;
      separator.dataset.day = key;
      separator.querySelector('span').textContent = dayLabel(date);
      // Before the unread line when it directly precedes this message.
      const before = message.previousElementSibling?.classList.contains('unread-line') ? message.previousElementSibling : message;
      list.insertBefore(separator, before);
    }
  }

  // ---- the room's details on a phone (⋯): a panel under the bar ----------------------------
  const toolsToggle = document.getElementById('room-tools-toggle');
  if (toolsToggle) {
    const header = toolsToggle.closest('.room-header');
    const setOpen = (open) => {
      header.classList.toggle('tools-open', open);
      toolsToggle.setAttribute('aria-expanded', String(open));
    };
    toolsToggle.addEventListener('click', (event) => {
      event.preventDefault();
      setOpen(!header.classList.contains('tools-open'));
    });
    document.addEventListener('click', (event) => {
      if (!event.target.closest('.room-header')) setOpen(false);
    });
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && header.classList.contains('tools-open')) { setOpen(false); toolsToggle.focus(); }
    });
  }

  // ---- messages -------------------------------------------------------------------------

  const canModerate = room?.dataset.canModerate === 'yes';

  /** Posts a form as a script; `keepalive` lets it finish when the page is left meanwhile. */
  function post(url, fields, { keepalive = false } = {}) {
    const body = new URLSearchParams(fields);
    body.set('_csrf', csrf());
    return fetch(url, {
      method: 'POST', body, credentials: 'same-origin', keepalive,
      headers: { Accept: 'application/json', 'X-CSRF-Token': csrf() },
    });
  }

  function parse(html) {
    return document.createRange().createContextualFragment(html);
  }

  // ---- one Tab stop for the whole list --------------------------------------------------

  // The list is one stop in the Tab order: the active message (the newest, or the last one
  // focused) has tabindex 0, the others -1, and only the active one's links and buttons are
  // reachable by Tab. ↑/↓, Home and End move between messages.
  const focusables = 'a[href], button, input, select, textarea, [tabindex]';
  let activeMessage = null;

  function setReachable(message, reachable) {
    message.tabIndex = reachable ? 0 : -1;
    for (const element of message.querySelectorAll(focusables)) {
      if (element.closest('.edit-form')) continue;
      if (reachable) element.removeAttribute('tabindex'); else element.tabIndex = -1;
    }
  }

  function activate(message) {
    if (!message || message === activeMessage) return;
    if (activeMessage?.isConnected) setReachable(activeMessage, false);
    activeMessage = message;
    setReachable(message, true);
  }

  /** A message joining the list: out of the Tab order unless it is the only one. */
  function rove(message) {
    if (activeMessage?.isConnected && activeMessage !== message) {
      setReachable(message, false);
    } else {
      activeMessage = null;
      activate([...list.querySelectorAll('li.message')].pop() || message);
      if (activeMessage !== message) setReachable(message, false);
    }
  }

  if (list) {
    list.addEventListener('focusin', (event) => activate(event.target.closest('li.message')));
    list.addEventListener('keydown', (event) => {
      const message = event.target.closest?.('li.message');
      if (!message || event.target !== message) return; // keys inside a message's fields stay theirs
      const messages = [...list.querySelectorAll('li.message')];
      const at = messages.indexOf(message);
      const to = { ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: messages.length - 1 }[event.key];
      if (to === undefined || !messages[to]) return;
      event.preventDefault();
      activate(messages[to]);
      messages[to].focus();
    });
  }

  // On a touch screen, a message's actions open from a long press (and close on a tap
  // elsewhere); with a mouse they show on hover, with a keyboard on focus.
  const touch = matchMedia('(hover: none)');
  document.documentElement.classList.add('js');
  function openActions(message) {
    for (const open of list.querySelectorAll('li.message.actions-open')) if (open !== message) open.classList.remove('actions-open');
    message.classList.add('actions-open');
    message.querySelector('.message-actions')?.scrollIntoView({ block: 'nearest' });
  }
  if (list) {
    let pressTimer = null;
    list.addEventListener('contextmenu', (event) => {
      const message = event.target.closest('li.message');
      if (!touch.matches || !message?.querySelector('.message-actions') || event.target.closest('a[href], img')) return;
      event.preventDefault();
      openActions(message);
    });
    list.addEventListener('touchstart', (event) => {
      const message = event.target.closest('li.message');
      clearTimeout(pressTimer);
      if (!message?.querySelector('.message-actions')) return;
      pressTimer = setTimeout(() => openActions(message), 500);
    }, { passive: true });
    for (const type of ['touchend', 'touchmove', 'touchcancel']) {
      list.addEventListener(type, () => clearTimeout(pressTimer), { passive: true });
    }
    document.addEventListener('click', (event) => {
      if (!event.target.closest('.message-actions')) {
        for (const open of list.querySelectorAll('li.message.actions-open')) open.classList.remove('actions-open');
      }
    });
  }

  /** Marks the viewer's own name, and @here / @channel / @all, which speak to everyone in the room. */
  function markMentionsOfMe(scope) {
    const meant = `.mention[data-user="${CSS.escape(viewerId || '')}"], .mention[data-user="here"], .mention[data-user="channel"], .mention[data-user="all"]`;
    for (const mention of scope.querySelectorAll(meant)) mention.classList.add('mention-me');
  }
  const mentionList = document.getElementById('mention-list');
  if (mentionList) markMentionsOfMe(mentionList);

  /** The viewer's controls on messages that arrived live (full pages carry their own): the
   *  server's, from the page's templates, one for their own messages and one for others'. */
  // ---- read receipts (DMs and groups) ---------------------------------------------------
  // How far each member has read (`data-receipts`, then `room.receipts` events): each message
  // says how many of the others have not read it yet, falling as they read.
  const readUpTo = room?.dataset.receipts ? JSON.parse(room.dataset.receipts) : null;
  function showReceipt(message) {
    if (!readUpTo || message.classList.contains('message-deleted')) return;
    const id = Number(message.dataset.message);
    let count = 0;
    for (const [user, upTo] of Object.entries(readUpTo)) if (user !== message.dataset.author && Number(upTo) < id) count += 1;
    let receipt = message.querySelector(':scope > .message-main > .receipt');
    if (count <= 0) { receipt?.remove(); return; }
    if (!receipt) {
      receipt = window.wsxTemplate('receipt');
      const main = message.querySelector(':scope > .message-main');
      if (!receipt || !main) return;
      const actions = main.querySelector(':scope > .message-actions, :scope > .edit-form');
      if (actions) actions.before(receipt); else main.append(receipt);
    }
    receipt.firstChild.textContent = String(count);
  }

  function decorate(message) {
    showReceipt(message);
    const mine = message.dataset.author === viewerId;
    markMentionsOfMe(message);
    for (const edited of message.querySelectorAll('[data-edited]')) edited.title = label('Edited');
    // A deleted thread root's placeholder has nothing to act on.
    const placeholder = message.classList.contains('message-deleted');
    if (!placeholder && !message.querySelector('.message-actions')) {
      const actions = window.wsxTemplate(mine ? 'controls-own' : 'controls-other', message.dataset.message);
      if (actions) message.querySelector('.message-main')?.append(actions);
    }
    // Other features bring theirs to life (marks.js: Pin and Save).
    document.dispatchEvent(new CustomEvent('wsx:message-added', { detail: message }));
    localizeTimes(message);
    rove(message);
  }

  /** What scrolls the messages: the list itself on a desktop, the page on a phone. */
  function scroller() {
    if (list && /(auto|scroll)/.test(getComputedStyle(list).overflowY)) return list;
    return document.scrollingElement || document.documentElement;
  }

  function distanceFromBottom() {
    const box = scroller();
    const height = box === list ? box.clientHeight : window.innerHeight;
    return box.scrollHeight - box.scrollTop - height;
  }

  // ---- the newest message in view ----------------------------------------------------
  // While the reader is at the bottom of the latest messages the list stays pinned there:
  // a message arriving, a picture or video finishing loading, a link preview or reactions
  // appearing keep the newest message whole above the composer. Scrolled up into history,
  // nothing moves under the reader; a "new messages" chip offers the way down instead.

  let pinned = true;
  const newMessagesChip = () => document.getElementById('jump-latest');

  function pinToBottom() {
    const box = scroller();
    box.scrollTop = box.scrollHeight;
    pinned = true;
  }

  function keepPinned() {
    if (pinned && room?.dataset.latest === 'yes') pinToBottom();
  }

  function notePosition() {
    pinned = room?.dataset.latest === 'yes' && distanceFromBottom() < 40;
    const chip = newMessagesChip();
    if (chip && pinned) { chip.hidden = true; chip.classList.remove('has-new'); }
  }

  if (list) {
    // Pictures reserve their box from their stored size; what still grows (a video's first
    // frame, a preview's picture, a message changing height) is caught here.
    for (const type of ['load', 'loadedmetadata']) list.addEventListener(type, keepPinned, true);
    if ('ResizeObserver' in window) {
      const sizes = new ResizeObserver(keepPinned);
      sizes.observe(list);
      new MutationObserver(() => { for (const child of list.children) sizes.observe(child); })
        .observe(list, { childList: true });
      for (const child of list.children) sizes.observe(child);
    }
  }

  /** Adds a message to the open list, once. */
  function insertMessage(id, html) {
    if (!list || room.dataset.latest !== 'yes' || document.getElementById('m-' + id)) return;
    const follow = pinned;
    const fragment = parse(html);
    const message = fragment.querySelector('li.message');
    if (!message) return;
    list.append(fragment);
    decorate(message);
    regroupDays();
    document.getElementById('no-messages')?.remove();
    if (follow || message.dataset.author === viewerId) {
      pinToBottom();
    } else {
      const chip = newMessagesChip();
      if (chip) { chip.textContent = label('NewMessages') || chip.textContent; chip.classList.add('has-new'); chip.hidden = false; }
    }
  }

  function replaceMessage(id, html) {
    const old = document.getElementById('m-' + id);
    if (!old || old.querySelector('.edit-form')) return;
    const message = parse(html).querySelector('li.message');
    if (!message) return;
    // The new text keeps its link preview, flags, reactions and thread line (not in the
    // message's HTML); a deleted root's placeholder keeps only its thread line.
    const kept = message.classList.contains('message-deleted')
      ? '.thread-summary' : '.link-preview, .link-preview-remove, .message-flags, form.reactions, .thread-summary';
    for (const part of old.querySelectorAll(kept)) message.querySelector('.message-main')?.append(part);
    old.replaceWith(message);
    decorate(message);
  }

  /** A message's link preview card arrived (`html`) or was removed (none). It goes before the
   *  message's flags, reactions and controls; its author gets the form that removes it. */
  function showPreview(data) {
    const message = document.getElementById('m-' + data.messageId);
    if (!message) return;
    for (const old of message.querySelectorAll('.link-preview, .link-preview-remove')) old.remove();
    if (!data.html) return;
    const card = parse(data.html).querySelector('.link-preview');
    const main = message.querySelector('.message-main');
    if (!card || !main) return;
    const parts = [card];
    if (String(data.authorId) === viewerId && room?.dataset.previewRemoveUrl) {
      const form = window.wsxTemplate('preview-remove', data.messageId);
      if (form) parts.push(form);
    }
    const before = main.querySelector(':scope > .message-flags, :scope > form.reactions, :scope > .message-actions');
    for (const part of parts) main.insertBefore(part, before);
  }

  /** Where a message is edited or deleted: the room's URL for it, with this message's id in its slot. */
  function messageURL(action, id) {
    return room.dataset[action + 'Url'].replace(room.dataset.idSlot, id);
  }

  /** Calls `send` on Enter (not with Shift, Alt, Ctrl or ⌘), but never on the Enter that ends
   *  a Hangul syllable in an IME: while composing, or right after compositionend (Safari).
   *  While `newLine()` says so, Enter is left to make a new line. */
  function onEnter(textarea, send, newLine = () => false) {
    let composing = false;
    let justComposed = false;
    textarea.addEventListener('compositionstart', () => { composing = true; });
    textarea.addEventListener('compositionend', () => {
      composing = false;
      justComposed = true;
      setTimeout(() => { justComposed = false; }, 0);
    });
    textarea.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.isComposing || composing || justComposed || event.keyCode === 229) return;
      if (newLine()) return;
      event.preventDefault();
      send();
    });
  }

  const composerBox = () => document.querySelector('#composer textarea');

  /** Edits a message where it is: its text as written (Markdown and all), Enter saves,
   *  Shift+Enter is a new line, Esc cancels and goes back to the composer. */
  async function editInPlace(message) {
    const id = message.dataset.message;
    const body = message.querySelector('.message-body');
    if (!body || message.querySelector('.edit-form') || message.dataset.editing) return;
    message.dataset.editing = 'yes';
    const answer = await fetch(messageURL('edit', id), { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .catch(() => null);
    const source = answer?.ok ? (await answer.json().catch(() => ({}))).content : null;
    delete message.dataset.editing;
    if (!message.isConnected || message.querySelector('.edit-form')) return;
    const form = window.wsxTemplate('edit-form', id);
    if (!form) return;
    form.removeAttribute('id');
    const textarea = form.querySelector('textarea');
    textarea.required = false;
    textarea.value = source ?? body.innerText;
    const cancel = form.querySelector('.edit-cancel');
    form.querySelector('.edit-hint').hidden = false;
    const error = form.querySelector('.field-error');
    body.hidden = true;
    body.after(form);
    // In view above the composer, Save and Cancel too.
    form.scrollIntoView({ block: 'nearest' });
    textarea.focus();
    textarea.setSelectionRange(textarea.value.length, textarea.value.length);
    function finish() {
      form.remove();
      body.hidden = false;
      composerBox()?.focus();
    }
    cancel.addEventListener('click', (event) => { event.preventDefault(); finish(); });
    textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !event.isComposing) {
        event.preventDefault();
        finish();
      }
    });
    onEnter(textarea, () => form.requestSubmit());
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const response = await post(messageURL('edit', id), { content: textarea.value });
      const reply = await response.json().catch(() => ({}));
      if (response.ok) {
        finish();
        replaceMessage(id, reply.html);
      } else {
        error.textContent = reply.error || response.statusText;
        error.hidden = false;
      }
    });
  }

  // ---- history --------------------------------------------------------------------------

  /** Scrolling up loads the older page in place (the page's own "older" link, read as HTML),
   *  keeping what is on screen where it was; a button jumps back to the latest messages. */
  function setUpHistory() {
    const older = room.querySelector('.paging.older a[rel="prev"]');
    let loading = false;
    async function loadOlder() {
      const link = room.querySelector('.paging.older a[rel="prev"]');
      if (!link || loading) return;
      loading = true;
      const text = link.textContent;
      link.textContent = label('LoadingOlder') || text;
      const response = await fetch(link.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } }).catch(() => null);
      if (response?.ok) {
        const page = new DOMParser().parseFromString(await response.text(), 'text/html');
        const earlier = [...page.querySelectorAll('#message-list li.message')]
          .filter((message) => !document.getElementById(message.id))
          .map((message) => document.importNode(message, true));
        const box = scroller();
        const height = box.scrollHeight;
        const top = box.scrollTop;
        list.prepend(...earlier);
        for (const message of earlier) decorate(message);
        regroupDays();
        box.scrollTop = top + (box.scrollHeight - height);
        const next = page.querySelector('.paging.older a[rel="prev"]');
        if (next) link.href = next.getAttribute('href'); else link.closest('.paging')?.remove();
      }
      link.textContent = text;
      loading = false;
    }

    const jump = document.createElement('button');
    jump.type = 'button';
    jump.className = 'jump-latest';
    jump.id = 'jump-latest';
    jump.textContent = label('JumpLatest');
    jump.hidden = room.dataset.latest === 'yes';
    room.append(jump);
    jump.addEventListener('click', () => {
      if (room.dataset.latest !== 'yes') { location.assign(location.pathname); return; }
      pinToBottom();
      jump.hidden = true;
      jump.classList.remove('has-new');
      jump.textContent = label('JumpLatest');
      composerBox()?.focus({ preventScroll: true });
    });

    const target = scroller() === list ? list : window;
    target.addEventListener('scroll', () => {
      if (older && scroller().scrollTop < 300) loadOlder();
      notePosition();
      if (!jump.classList.contains('has-new')) jump.hidden = room.dataset.latest === 'yes' && distanceFromBottom() < 400;
    }, { passive: true });
  }

  if (list) {
    for (const message of list.querySelectorAll('li.message')) decorate(message);
    regroupDays();
    list.addEventListener('click', async (event) => {
      const message = event.target.closest('li.message');
      if (!message) return;
      if (event.target.closest('.message-edit')) {
        event.preventDefault();
        editInPlace(message);
      } else if (event.target.closest('.message-delete')) {
        event.preventDefault();
        if (!window.confirm(label('ConfirmDelete'))) return;
        const response = await post(messageURL('delete', message.dataset.message), { confirm: 'yes' });
        if (response.ok) message.remove();
      }
    });
    const around = new URLSearchParams(location.search).get('around');
    const shown = around && document.getElementById('m-' + around);
    if (shown) {
      // Opened at a message (a search result, a link to it): centred and lit up for a moment.
      // (Again once loaded: the browser's own jump to the #m- fragment comes after this script.)
      shown.scrollIntoView({ block: 'center' });
      window.addEventListener('load', () => requestAnimationFrame(() => shown.scrollIntoView({ block: 'center' })), { once: true });
      shown.classList.add('highlighted');
      setTimeout(() => shown.classList.remove('highlighted'), 4000);
    } else {
      const unreadLine = document.getElementById('unread-line');
      if (unreadLine && room.dataset.latest === 'yes') unreadLine.scrollIntoView({ block: 'center' });
      else if (!location.hash && room.dataset.latest === 'yes') pinToBottom();
    }
    setUpHistory();
    notePosition();
  }
  localizeTimes(document);
  // Parts drawn by other scripts (a thread's line, the Threads list) show their times too.
  document.addEventListener('wsx:times-changed', (event) => { if (event.detail) localizeTimes(event.detail); });

  // ---- composer -------------------------------------------------------------------------

  const composer = document.getElementById('composer');
  if (composer) {
    const textarea = composer.querySelector('textarea');
    const error = document.getElementById('composer-error');
    // On a touch screen Enter is a new line and the send button sends (as KakaoTalk does): a
    // phone keyboard has no Shift+Enter. The placeholder says which.
    const touchTyping = matchMedia('(pointer: coarse)');
    const showEnterRule = () => {
      const placeholder = touchTyping.matches ? textarea.dataset.placeholderTouch : textarea.dataset.placeholderKeys;
      if (placeholder) textarea.placeholder = placeholder;
      textarea.enterKeyHint = touchTyping.matches ? 'enter' : 'send';
    };
    showEnterRule();
    touchTyping.addEventListener('change', showEnterRule);
    onEnter(textarea, () => { if (!touchTyping.matches) composer.requestSubmit(); }, () => touchTyping.matches);
    // ↑ in an empty composer edits one's own last message.
    textarea.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowUp' || textarea.value !== '' || event.isComposing || event.shiftKey || event.altKey) return;
      const mine = list ? [...list.querySelectorAll('li.message')].filter((m) => m.dataset.author === viewerId) : [];
      if (!mine.length) return;
      event.preventDefault();
      editInPlace(mine[mine.length - 1]);
    });
    // Opening a room puts the cursor in its composer, unless the page was opened at a message
    // or on a touch screen (where focusing would raise the keyboard over the messages).
    if (!location.hash && !new URLSearchParams(location.search).has('around') && matchMedia('(pointer: fine)').matches) {
      textarea.focus({ preventScroll: true });
    }
    // What is being typed is kept per room in this browser (a reload keeps it), until sent;
    // signing out clears every draft, so a shared computer shows nobody else's.
    const draftKey = `wsx-draft:${viewerId}:${composer.action}`;
    try {
      const draft = localStorage.getItem(draftKey);
      if (draft && !textarea.value) textarea.value = draft;
    } catch (_) { /* storage off */ }
    // Saved on every change (a local write is cheap) and again as the page goes away, so a
    // quick switch to another room loses nothing.
    const saveDraft = () => {
      try {
        if (textarea.value) localStorage.setItem(draftKey, textarea.value); else localStorage.removeItem(draftKey);
      } catch (_) { /* full or off */ }
    };
    textarea.addEventListener('input', saveDraft);
    addEventListener('pagehide', saveDraft);
    const forgetDraft = () => {
      try { localStorage.removeItem(draftKey); } catch (_) { /* off */ }
    };
    // The text area grows with what is typed (up to the CSS max-height): CSS does it where
    // `field-sizing` exists, this elsewhere.
    if (!CSS.supports('field-sizing', 'content')) {
      const grow = () => { textarea.style.height = 'auto'; textarea.style.height = textarea.scrollHeight + 'px'; };
      textarea.addEventListener('input', grow);
      grow();
    }
    // Files: picker, drag-and-drop onto the composer, or a pasted image; checked here before
    // sending (the server checks again), sent with the text in one multipart request.
    const fileInput = document.getElementById('composer-files');
    const attachList = document.getElementById('attach-list');
    const progress = document.getElementById('upload-progress');
    const hint = attachList?.textContent || '';
    const maxFiles = Number(composer.dataset.maxFiles) || 5;
    const maxBytes = Number(composer.dataset.maxBytes) || 5 * 1024 * 1024;

    function showError(text) {
      error.textContent = text;
      error.hidden = !text;
      if (text) textarea.setAttribute('aria-invalid', 'true'); else textarea.removeAttribute('aria-invalid');
    }

    function chosenFiles() { return Array.from(fileInput?.files || []); }

    function filesProblem(files) {
      if (files.length > maxFiles) return composer.dataset.tooMany;
      if (files.some((file) => file.size > maxBytes)) return composer.dataset.tooLarge;
      return '';
    }

    // Chosen files show as chips above the hint: a thumbnail for an image, the kind and size
    // for others, a button to take one out, and while sending, each one's own progress.
    const chips = document.createElement('ul');
    chips.className = 'file-chips';
    chips.id = 'file-chips';
    chips.hidden = true;
    attachList?.before(chips);
    let previews = [];

    function sizeText(bytes) {
      if (bytes < 1024) return `${bytes} B`;
      if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
      return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
    }

    function kindOf(file) {
      if (file.type === 'application/pdf' || /\.pdf$/i.test(file.name)) return 'PDF';
      if (file.type === 'application/zip' || /\.zip$/i.test(file.name)) return 'ZIP';
      return 'FILE';
    }

    function showChosen() {
      const files = chosenFiles();
      for (const url of previews) URL.revokeObjectURL(url);
      previews = [];
      chips.replaceChildren();
      files.forEach((file, index) => {
        const chip = document.createElement('li');
        chip.className = 'file-chip';
        chip.dataset.index = String(index);
        if (file.type.startsWith('image/')) {
          const thumb = document.createElement('img');
          thumb.className = 'chip-thumb';
          thumb.alt = '';
          thumb.src = URL.createObjectURL(file);
          previews.push(thumb.src);
          chip.append(thumb);
        } else {
          const icon = document.createElement('span');
          icon.className = 'chip-icon';
          icon.setAttribute('aria-hidden', 'true');
          icon.textContent = kindOf(file);
          chip.append(icon);
        }
        const name = document.createElement('span');
        name.className = 'chip-name';
        name.textContent = file.name;
        const size = document.createElement('span');
        size.className = 'chip-size';
        size.textContent = sizeText(file.size);
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'chip-remove';
        remove.textContent = '×';
        remove.setAttribute('aria-label', (label('FileRemove') || '{0}').replace('{0}', file.name));
        const bar = document.createElement('progress');
        bar.className = 'chip-progress';
        bar.max = 100;
        bar.value = 0;
        bar.hidden = true;
        bar.setAttribute('aria-label', file.name);
        chip.append(name, size, remove, bar);
        chips.append(chip);
      });
      chips.hidden = !files.length;
      showError(filesProblem(files));
    }

    chips.addEventListener('click', (event) => {
      const chip = event.target.closest('.chip-remove')?.closest('.file-chip');
      if (!chip || sending) return;
      const keep = chosenFiles().filter((_, index) => String(index) !== chip.dataset.index);
      const transfer = new DataTransfer();
      for (const file of keep) transfer.items.add(file);
      fileInput.files = transfer.files;
      showChosen();
      (chips.querySelector('.chip-remove') || textarea).focus();
    });

    /** Each chip's share of an upload that has sent `loaded` of `total` bytes (the files in
     *  order, after the text; the form's own bytes spread over them). */
    function showFileProgress(files, loaded, total) {
      const sizes = files.map((file) => file.size);
      const scale = sizes.reduce((a, b) => a + b, 0) / Math.max(total, 1);
      let before = 0;
      chips.querySelectorAll('.chip-progress').forEach((bar, index) => {
        const size = Math.max(sizes[index] || 0, 1);
        bar.hidden = false;
        bar.value = Math.round(Math.min(Math.max((loaded * scale - before) / size, 0), 1) * 100);
        before += sizes[index] || 0;
      });
    }

    function addFiles(list) {
      if (!fileInput || !list?.length) return;
      const transfer = new DataTransfer();
      for (const file of [...chosenFiles(), ...list]) transfer.items.add(file);
      fileInput.files = transfer.files;
      showChosen();
    }

    fileInput?.addEventListener('change', showChosen);
    // A file dropped anywhere on the room attaches to the message being written; dropped
    // anywhere else on the page it does nothing (the browser would leave the chat to show it).
    const carriesFiles = (event) => Array.from(event.dataTransfer?.types || []).includes('Files');
    let dragDepth = 0;
    document.addEventListener('dragover', (event) => { if (carriesFiles(event)) event.preventDefault(); });
    document.addEventListener('drop', (event) => { if (carriesFiles(event)) event.preventDefault(); });
    const dropZone = room || composer;
    dropZone.addEventListener('dragenter', (event) => {
      if (!carriesFiles(event)) return;
      dragDepth += 1;
      composer.classList.add('dropping');
    });
    dropZone.addEventListener('dragleave', () => {
      dragDepth = Math.max(0, dragDepth - 1);
      if (!dragDepth) composer.classList.remove('dropping');
    });
    dropZone.addEventListener('drop', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      dragDepth = 0;
      composer.classList.remove('dropping');
      addFiles(event.dataTransfer?.files);
    });
    textarea.addEventListener('paste', (event) => {
      const pasted = Array.from(event.clipboardData?.files || []).filter((file) => file.type.startsWith('image/'));
      if (pasted.length) { event.preventDefault(); addFiles(pasted); }
    });

    // Each message gets an id of its own when first sent, kept (with its text, in this
    // browser) until the server has it: a retry after a lost answer never posts it twice, and
    // a message that could not be sent survives a reload, offered to send again or drop.
    const unsentKey = `wsx-unsent:${viewerId}:${composer.action}`;
    const unsentNote = document.getElementById('composer-unsent');
    let clientId = null;
    function newClientId() {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    }
    function keepUnsent() {
      try { localStorage.setItem(unsentKey, JSON.stringify({ clientId, text: textarea.value })); } catch (_) { /* full or off */ }
      if (unsentNote) unsentNote.hidden = false;
    }
    function forgetUnsent() {
      try { localStorage.removeItem(unsentKey); } catch (_) { /* off */ }
      if (unsentNote) unsentNote.hidden = true;
      clientId = null;
    }
    try {
      const saved = JSON.parse(localStorage.getItem(unsentKey) || 'null');
      if (saved?.clientId) {
        clientId = saved.clientId;
        if (!textarea.value) textarea.value = saved.text || '';
        if (unsentNote) unsentNote.hidden = false;
      }
    } catch (_) { /* nothing kept */ }
    unsentNote?.addEventListener('click', (event) => {
      const action = event.target.closest('[data-unsent]')?.dataset.unsent;
      if (action === 'retry') composer.requestSubmit();
      if (action === 'discard') {
        textarea.value = '';
        forgetUnsent();
        forgetDraft();
        textarea.focus();
      }
    });

    let sending = false;
    let mentionsConfirmed = false; // the author said yes to telling everyone (see 409 below)
    composer.addEventListener('submit', (event) => {
      event.preventDefault();
      if (sending) return;
      const files = chosenFiles();
      if (!textarea.value.trim() && !files.length) {
        showError(composer.dataset.empty);
        textarea.focus();
        return;
      }
      const problem = filesProblem(files);
      if (problem) { showError(problem); return; }
      sending = true;
      // The same message sent again keeps its id; a changed text is a new message.
      let saved = null;
      try { saved = JSON.parse(localStorage.getItem(unsentKey) || 'null'); } catch (_) { /* none */ }
      if (!clientId || (saved && saved.text !== textarea.value)) clientId = newClientId();
      const sent = new FormData(composer);
      sent.set('client_id', clientId);
      if (mentionsConfirmed) sent.set('confirm_mentions', 'yes');
      mentionsConfirmed = false;
      const request = new XMLHttpRequest();
      request.open('POST', composer.action);
      request.setRequestHeader('Accept', 'application/json');
      request.setRequestHeader('X-CSRF-Token', csrf());
      if (progress && files.length) {
        progress.value = 0;
        progress.hidden = false;
        request.upload.onprogress = (e) => {
          if (!e.lengthComputable) return;
          progress.value = Math.round((e.loaded / e.total) * 100);
          showFileProgress(files, e.loaded, e.total);
        };
      }
      request.onload = () => {
        sending = false;
        if (progress) progress.hidden = true;
        let reply = {};
        try { reply = JSON.parse(request.responseText); } catch (_) { /* not JSON */ }
        if (request.status === 201 || request.status === 200) {
          forgetUnsent();
          forgetDraft();
          textarea.value = '';
          if (fileInput) fileInput.value = '';
          showChosen();
          showError('');
          if (!currentRoom) { location.assign(location.pathname); return; } // a DM's first message made the room
          // Sent from an older page: the latest one, where the message is.
          if (room.dataset.latest !== 'yes') { location.assign(`${location.pathname}#m-${reply.id}`); return; }
          insertMessage(reply.id, reply.html);
        } else if (request.status === 409 && reply.confirm) {
          // @here, @channel or @all in a large room: asked once, then sent as it is.
          if (window.confirm(reply.confirm)) {
            mentionsConfirmed = true;
            composer.requestSubmit();
          } else {
            textarea.focus();
          }
        } else if (reply.error) {
          showError(reply.error);
        } else if (request.status === 0 || request.status >= 500) {
          keepUnsent();
        } else {
          composer.submit(); // signed out, or a refusal only the server's page explains
        }
      };
      // The server could not be reached: nothing leaves the page, the text stays.
      request.onerror = () => { sending = false; if (progress) progress.hidden = true; keepUnsent(); };
      request.send(sent);
    });
  }

  // ---- read markers and unread badges ---------------------------------------------------

  // A read waits for the window to be in view; once it is, it goes after a short pause
  // (`readTimer` set: seen, not yet sent).
  let readTimer = null;
  let pendingRead = 0;
  function markRead(messageId, { now = false } = {}) {
    if (!room?.dataset.readUrl) return;
    pendingRead = Math.max(pendingRead, Number(messageId) || 0);
    if (document.hidden) return;
    clearTimeout(readTimer);
    readTimer = now ? null : setTimeout(sendRead, 300);
    if (now) sendRead();
  }
  function sendRead() {
    readTimer = null;
    const upTo = pendingRead;
    pendingRead = 0;
    if (upTo) post(room.dataset.readUrl, { message_id: String(upTo) }, { keepalive: true });
  }
  document.addEventListener('visibilitychange', () => { if (!document.hidden && pendingRead) markRead(pendingRead); });
  // Leaving before the pause is over (a reload, another room): a read already seen goes anyway.
  // (The page is hidden by the time `pagehide` fires, so whether it was seen is the timer's.)
  window.addEventListener('pagehide', () => {
    if (!readTimer || !pendingRead || !room?.dataset.readUrl) return;
    clearTimeout(readTimer);
    readTimer = null;
    navigator.sendBeacon(room.dataset.readUrl, new URLSearchParams({ message_id: String(pendingRead), _csrf: csrf() }));
    pendingRead = 0;
  });
  // Opening the newest messages is reading them, once the window is in view. The page itself
  // recorded nothing (a prefetch or a HEAD must not read anyone's messages for them).
  if (room?.dataset.latest === 'yes' && document.getElementById('unread-line')) {
    const newest = [...(list?.querySelectorAll('li.message[data-message]') || [])].pop();
    if (newest) markRead(newest.dataset.message, { now: true });
  }

  /** A room's sidebar link, which keeps its unread and mention counts (`data-unread-count`,
   *  `data-mention-count`) and its level (`data-notify`). */
  const roomLink = (roomId) => document.querySelector(`#sidebar [data-room-link="${CSS.escape(String(roomId))}"]`);

  /** What a room's badge shows at its level (`UnreadBadge` on the server): at `all` every
   *  unread message; at `mentions` mentions, or every message of a DM or group, and the name
   *  bold for the rest; at `mute` mentions only. */
  function badgeOf(link) {
    const unread = Number(link?.dataset.unreadCount) || 0, mentions = Number(link?.dataset.mentionCount) || 0;
    const level = link?.dataset.notify || meta('notify-default') || 'mentions';
    const direct = !!link?.closest('#sidebar-dms');
    const count = level === 'all' ? unread : level === 'mute' ? mentions : direct ? unread : mentions;
    return { count, bold: level !== 'mute' && unread > 0 };
  }

  /** Sets a room's counts (mentions unchanged when not given) and shows its badges. */
  function setBadge(roomId, unread, mentions) {
    const link = roomLink(roomId);
    if (link) {
      link.dataset.unreadCount = String(Math.max(unread, 0));
      if (mentions !== undefined) link.dataset.mentionCount = String(Math.max(mentions, 0));
      if (unread <= 0) link.dataset.mentionCount = '0';
    }
    showBadge(roomId);
  }

  /** Draws a room's badges (the sidebar's and the home page's) from its link's counts. */
  function showBadge(roomId) {
    const { count, bold } = badgeOf(roomLink(roomId));
    for (const badge of document.querySelectorAll(`[data-unread="${CSS.escape(String(roomId))}"]`)) {
      badge.textContent = String(count);
      badge.hidden = count <= 0;
      badge.closest('li')?.classList.toggle('unread', bold);
    }
    showUnreadTotal();
  }

  // The numbers of the sidebar's badges lead the tab title, "(3) 일반 · wsx", and the tab icon
  // gets a dot for any unread room; the phone's menu button shows the same for the rooms other
  // than the one open; the Mentions item counts unread mentions (rooms and threads).
  const plainTitle = document.title.replace(/^\(\d+\) /, '');
  const icon = document.querySelector('link[rel="icon"]');
  const mentionsBadge = document.getElementById('mentions-unread');
  const roomMentions = () => [...document.querySelectorAll('#sidebar-channels [data-room-link], #sidebar-dms [data-room-link]')]
    .reduce((sum, link) => sum + (Number(link.dataset.mentionCount) || 0), 0);
  // Unread mentions in threads: what the server's total has beyond the rooms'.
  let threadMentions = Math.max((Number(mentionsBadge?.textContent) || 0) - roomMentions(), 0);
  function showUnreadTotal() {
    if (!workspaceId) return;
    let total = 0, elsewhere = 0, unseen = false, unseenElsewhere = !document.getElementById('threads-unread')?.hidden;
    for (const link of document.querySelectorAll('#sidebar-channels [data-room-link], #sidebar-dms [data-room-link]')) {
      const { count, bold } = badgeOf(link);
      const here = link.dataset.roomLink === currentRoom;
      total += count;
      unseen ||= count > 0 || bold;
      if (!here) { elsewhere += count; unseenElsewhere ||= count > 0 || bold; }
    }
    document.title = (total > 0 ? `(${total}) ` : '') + plainTitle;
    if (icon) icon.href = unseen ? icon.dataset.iconUnread : icon.dataset.icon;
    const menu = document.getElementById('menu-unread');
    if (menu) {
      menu.hidden = !unseenElsewhere;
      const count = menu.querySelector('.menu-badge-count');
      if (count) count.textContent = elsewhere > 0 ? String(elsewhere) : '';
    }
    if (mentionsBadge) {
      const mentions = roomMentions() + threadMentions;
      mentionsBadge.textContent = String(mentions);
      mentionsBadge.hidden = mentions <= 0;
    }
  }

  // The room lists were read again (a room added or gone): their counts are brought up to
  // date once more (a message may have arrived while they were read, before its row existed),
  // and the title's total follows them.
  document.addEventListener('wsx:rooms-listed', () => { showUnreadTotal(); resyncBadges(); });
  // Lists being read again, or counts being fetched: a message arriving meanwhile is counted
  // by the fetched counts or added on top of them (by its event id), never here as well.
  let resyncing = 0;
  const countsInFlight = () => resyncing > 0 || document.documentElement.dataset.listsReading === 'yes';

  const unreadCount = (roomId) => Number(roomLink(roomId)?.dataset.unreadCount) || 0;
  const mentionCount = (roomId) => Number(roomLink(roomId)?.dataset.mentionCount) || 0;

  // Messages from others that arrived lately, by event id: a resync's counts include exactly
  // the events up to its id, and those after it are counted again on top. The page's own
  // counts include the events up to the id it came with (one committed while the page was
  // read is in them, and replayed to it as well).
  const arrivals = [];
  let countedThrough = Number(meta('rooms-counted-through')) || 0;
  const threadsCountedThrough = Number(meta('threads-counted-through')) || 0;

  async function resyncBadges() {
    if (!workspaceId) return;
    resyncing += 1;
    const response = await fetch(meta('unread-url'), { headers: { Accept: 'application/json' } }).catch(() => null);
    const answer = response?.ok ? await response.json().catch(() => null) : null;
    resyncing -= 1;
    if (!answer) return;
    const { counts, mentions, eventId } = answer;
    countedThrough = Math.max(countedThrough, Number(eventId) || 0);
    const latest = { ...counts }, latestMentions = { ...(mentions || {}) };
    for (const arrival of arrivals) {
      if (arrival.id > countedThrough && arrival.roomId in latest) {
        latest[arrival.roomId] += 1;
        if (arrival.mentioned) latestMentions[arrival.roomId] = (latestMentions[arrival.roomId] || 0) + 1;
      }
    }
    for (const [roomId, count] of Object.entries(latest)) {
      const read = roomId === currentRoom && !document.hidden;
      setBadge(roomId, read ? 0 : count, read ? 0 : latestMentions[roomId] || 0);
    }
  }

  // ---- notifications --------------------------------------------------------------------

  const tabId = Math.random().toString(36).slice(2);
  const focus = new Map(); // tab -> { room, visible }
  const channel = 'BroadcastChannel' in window ? new BroadcastChannel('wsx-focus') : null;
  function announceFocus(leaving) {
    const state = { tab: tabId, room: leaving ? '' : currentRoom, visible: !leaving && !document.hidden };
    focus.set(tabId, state);
    channel?.postMessage(state);
  }
  if (channel) channel.onmessage = (event) => { focus.set(event.data.tab, event.data); };
  announceFocus(false);
  document.addEventListener('visibilitychange', () => announceFocus(false));
  window.addEventListener('pagehide', () => announceFocus(true));

  const notifyToggle = document.getElementById('notify-toggle');
  if (notifyToggle && 'Notification' in window && Notification.permission === 'default') {
    notifyToggle.hidden = false;
    notifyToggle.addEventListener('click', async () => {
      await Notification.requestPermission();
      notifyToggle.hidden = Notification.permission !== 'default';
    });
  }

  // ---- notification levels --------------------------------------------------------------

  /** How a room notifies this person: its own level, else their default (all | mentions | mute). */
  function notifyLevel(roomId) {
    const link = document.querySelector(`#sidebar [data-room-link="${CSS.escape(String(roomId))}"]`);
    return link?.dataset.notify || meta('notify-default') || 'mentions';
  }

  /** Shows a room's level in the sidebar (dimmed and a dot when muted) and in its header menu. */
  function showNotifyLevel(roomId, level, own) {
    for (const link of document.querySelectorAll(`#sidebar [data-room-link="${CSS.escape(String(roomId))}"]`)) {
      link.dataset.notify = level;
      if (own) link.dataset.notifyOwn = 'yes'; else delete link.dataset.notifyOwn;
      link.closest('li')?.classList.toggle('muted', level === 'mute');
    }
    showBadge(roomId);
    const select = String(roomId) === currentRoom ? document.getElementById('notify-level') : null;
    if (select) select.value = own ? level : 'default';
    showUnreadTotal();
  }

  /** The person's default changed: every room without its own level follows it. */
  function showNotifyDefault(level) {
    document.querySelector('meta[name="notify-default"]')?.setAttribute('content', level);
    for (const link of document.querySelectorAll('#sidebar [data-room-link]')) {
      if (!link.dataset.notifyOwn) showNotifyLevel(link.dataset.roomLink, level, false);
    }
  }

  // With JavaScript the header's menu saves as it changes; without, its button posts the form.
  const notifyForm = document.getElementById('notify-form');
  if (notifyForm) {
    notifyForm.querySelector('.notify-save').hidden = true;
    notifyForm.level.addEventListener('change', async () => {
      const response = await post(notifyForm.action, { level: notifyForm.level.value }).catch(() => null);
      if (!response?.ok) notifyForm.submit();
    });
  }

  function roomIsWatched(roomId) {
    for (const state of focus.values()) if (state.visible && state.room === String(roomId)) return true;
    return false;
  }

  function notify(data) {
    if (!('Notification' in window) || Notification.permission !== 'granted') return;
    // One tab speaks for the browser: the one holding the live stream (or each, without one).
    const role = document.documentElement.dataset.liveRole;
    if (channel && role !== 'leader') return;
    if (roomIsWatched(data.roomId)) return;
    const mentioned = (data.mentions || []).map(String).includes(viewerId);
    const level = notifyLevel(data.roomId);
    // A reply kept in its thread speaks only to the thread's followers (a mention makes one).
    if (data.threadRootId && !data.inTimeline && !(data.followers || []).map(String).includes(viewerId)) return;
    // Direct and group conversations speak to the viewer: they notify like mentions.
    const direct = data.roomKind === 'dm' || data.roomKind === 'group';
    if (level === 'mute' || (level === 'mentions' && !mentioned && !direct)) return;
    const groupName = data.roomKind === 'group'
      ? document.querySelector(`#sidebar [data-room-link="${CSS.escape(String(data.roomId))}"] .room-name`)?.textContent : '';
    const title = mentioned
      ? (label('Mention') || '{0}').replace('{0}', data.authorNickname)
      : direct ? (groupName ? `${data.authorNickname} · ${groupName}` : data.authorNickname) : `#${data.roomName}`;
    const note = new Notification(title, { body: data.snippet, tag: `wsx-m-${data.messageId}` });
    note.onclick = () => { window.focus(); if (data.url) location.assign(data.url); };
    document.documentElement.dataset.lastNotification = title;
  }

  // ---- the Mentions view ----------------------------------------------------------------

  /** A new mention of the viewer: the Mentions page, if open, reads its list again. */
  let mentionsReading = null;
  function refreshMentions() {
    const list = document.getElementById('mention-list');
    if (!list || mentionsReading) return;
    mentionsReading = fetch(location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, 'text/html');
        const theirs = fresh.getElementById('mention-list');
        if (theirs) document.getElementById('mention-list')?.replaceWith(document.importNode(theirs, true));
        if (!fresh.getElementById('mention-list-empty')) document.getElementById('mention-list-empty')?.remove();
        const fresher = document.getElementById('mention-list');
        if (fresher) { localizeTimes(fresher); markMentionsOfMe(fresher); }
      })
      .catch(() => {})
      .finally(() => { mentionsReading = null; });
  }

  // ---- live events ----------------------------------------------------------------------

  document.addEventListener('wsx:live', (event) => {
    const { type, data } = event.detail;
    // Counts read since this event was committed already include it (see resyncBadges).
    const alreadyCounted = Number(event.detail.id) <= countedThrough;
    const here = String(data.roomId) === currentRoom;
    switch (type) {
      case 'message.created': {
        const mine = String(data.authorId) === viewerId;
        const mentioned = (data.mentions || []).map(String).includes(viewerId);
        if (mentioned) refreshMentions();
        // Only messages of the timeline count in the room (a reply kept in its thread does not).
        const inTimeline = data.inTimeline !== false;
        const listedHere = here && (threadRoot ? String(data.threadRootId) === threadRoot : inTimeline);
        if (listedHere) {
          insertMessage(data.messageId, data.html);
          if (!mine) markRead(data.messageId);
        }
        if (!mine && !here && inTimeline) {
          arrivals.push({ id: Number(event.detail.id), roomId: String(data.roomId), mentioned });
          if (arrivals.length > 500) arrivals.shift();
        }
        if (!mine && (!listedHere || document.hidden)) {
          if (!here && inTimeline && !alreadyCounted && !countsInFlight()) {
            setBadge(data.roomId, unreadCount(data.roomId) + 1, mentionCount(data.roomId) + (mentioned ? 1 : 0));
          }
          // A reply kept in its thread that mentions the viewer counts on the Mentions item
          // (reading the thread brings the exact total: `thread.read`).
          const threadShown = threadRoot === String(data.threadRootId) && !document.hidden;
          const threadCounted = Number(event.detail.id) <= threadsCountedThrough;
          if (!inTimeline && mentioned && !threadShown && !threadCounted) { threadMentions += 1; showUnreadTotal(); }
          notify(data);
        }
        if (inTimeline) {
          for (const last of document.querySelectorAll(`[data-last-message="${CSS.escape(String(data.roomId))}"]`)) {
            last.textContent = data.snippet;
          }
        }
        break;
      }
      case 'message.updated':
        if (here) replaceMessage(data.messageId, data.html);
        break;
      case 'message.preview':
        if (here) showPreview(data);
        break;
      case 'message.deleted':
        if (here) document.getElementById('m-' + data.messageId)?.remove();
        resyncBadges();
        break;
      case 'room.read':
        setBadge(data.roomId, data.unread, data.mentions);
        break;
      case 'thread.read':
        if (String(data.workspaceId) === workspaceId && data.mentionsTotal !== undefined) {
          threadMentions = Math.max(Number(data.mentionsTotal) || 0, 0);
          showUnreadTotal();
        }
        break;
      case 'room.receipts':
        if (here && readUpTo) {
          readUpTo[String(data.userId)] = Math.max(Number(readUpTo[String(data.userId)]) || 0, Number(data.lastRead) || 0);
          for (const message of list?.querySelectorAll('li.message') || []) showReceipt(message);
        }
        break;
      case 'notify.changed':
        if (data.roomId) showNotifyLevel(data.roomId, data.level, data.own);
        else showNotifyDefault(data.level);
        break;
      case 'coins.changed':
        // A payment confirmed while its result page waited: show the final result.
        if (document.querySelector('.store-result[data-result="pending"]') && data.reason === 'purchase') location.reload();
        break;
    }
  });
})();
