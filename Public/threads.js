// wsx threads: the side panel, thread lines that stay current, and the Threads badge.
//
// Without this script a thread is a page of its own (`/w/{wid}/m/{mid}/thread`): the line under
// a root, "Reply in thread" and a reply's "replied in a thread" are links to it. With it, on a
// room's page they open the thread beside the room (over it on a narrow screen, the whole
// screen on a phone) in a frame that holds the thread's own page (`?panel=1`, which the server
// lets only this site frame): that page brings its own composer, editing, reactions and live
// replies (chat.js), so the panel is the same page, not a copy of it. Esc or × closes it.
// On every page, `thread.updated` redraws a root's line (and a thread page's count of replies),
// and the sidebar's Threads badge counts the unread replies of followed threads: one more for
// each reply someone else writes in one of them, the exact total whenever one is read.
'use strict';

(function () {
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content || '';
  const viewerId = meta('viewer-id');
  if (!viewerId) return;
  const workspaceId = meta('workspace-id');
  const room = document.querySelector('section.room');
  const threadRoot = room?.dataset.threadRoot || '';
  const embedded = document.body.classList.contains('embedded');

  const parse = (html) => document.createRange().createContextualFragment(html);

  // ---- inside the panel ---------------------------------------------------------------------

  if (embedded) {
    // Esc that nothing inside took (an edit being cancelled, a picker closing) closes the panel.
    document.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || event.defaultPrevented || event.isComposing) return;
      window.parent.postMessage({ type: 'wsx-thread-close' }, location.origin);
    });
  }

  // ---- the side panel on a room's page --------------------------------------------------------

  let panel = null;

  function openPanel(url) {
    const address = new URL(url, location.href);
    address.searchParams.set('panel', '1');
    if (!panel) {
      panel = document.createElement('aside');
      panel.className = 'thread-panel';
      panel.id = 'thread-panel';
      panel.setAttribute('aria-label', meta('label-threadtitle'));
      const bar = document.createElement('div');
      bar.className = 'thread-panel-bar';
      const title = document.createElement('h2');
      title.className = 'thread-panel-title';
      title.textContent = meta('label-threadtitle');
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'thread-panel-close';
      close.setAttribute('aria-label', meta('label-threadclose'));
      close.textContent = '×';
      close.addEventListener('click', closePanel);
      bar.append(title, close);
      const frame = document.createElement('iframe');
      frame.className = 'thread-frame';
      frame.title = meta('label-threadtitle');
      panel.append(bar, frame);
      (document.querySelector('.frame') || document.body).append(panel);
    }
    panel.hidden = false;
    document.body.classList.add('thread-open');
    const frame = panel.querySelector('iframe');
    if (frame.getAttribute('src') !== address.pathname + address.search + address.hash) {
      frame.src = address.pathname + address.search + address.hash;
    }
    frame.focus();
  }

  function closePanel() {
    if (!panel || panel.hidden) return;
    panel.hidden = true;
    document.body.classList.remove('thread-open');
    // The frame goes, so its page stops listening and reading.
    panel.querySelector('iframe').removeAttribute('src');
    panel.querySelector('iframe').src = 'about:blank';
    (document.activeElement?.closest?.('li.message') || document.getElementById('composer-content'))?.focus({ preventScroll: true });
  }

  if (room && !threadRoot && !embedded) {
    room.addEventListener('click', (event) => {
      const link = event.target.closest('a.thread-summary, a.message-reply, a.reply-context');
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      openPanel(link.href);
    });
    window.addEventListener('message', (event) => {
      if (event.origin === location.origin && event.data?.type === 'wsx-thread-close') closePanel();
    });
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !event.defaultPrevented && panel && !panel.hidden) closePanel();
    });
  }

  // ---- live: thread lines, the reply count, the badge -----------------------------------------

  /** Draws the line under a root as it is now (none when its last reply went). */
  function showThreadLine(data) {
    for (const message of document.querySelectorAll(`li.message[data-message="${CSS.escape(String(data.rootId))}"]`)) {
      if (threadRoot) continue; // a thread's page shows its replies, not their line
      const old = message.querySelector('.thread-summary');
      const line = data.html ? parse(data.html).querySelector('.thread-summary') : null;
      if (!line) { old?.remove(); continue; }
      if (old) {
        old.replaceWith(line);
      } else {
        const actions = message.querySelector('.message-main > .message-actions, .message-main > .edit-form');
        if (actions) actions.before(line); else message.querySelector('.message-main')?.append(line);
      }
      if (message.tabIndex === -1) line.tabIndex = -1; // the list's roving Tab stop is elsewhere
      document.dispatchEvent(new CustomEvent('wsx:times-changed', { detail: line }));
    }
    if (threadRoot === String(data.rootId)) {
      const count = data.html ? parse(data.html).querySelector(`.thread-count .local-text[lang="${document.documentElement.lang}"]`) : null;
      const divider = document.querySelector('#thread-divider span');
      if (divider && count) divider.textContent = count.textContent;
    }
  }

  const badge = () => document.getElementById('threads-unread');
  // The page's count includes the replies up to this event id (replayed ones are not new).
  const countedThrough = Number(meta('threads-counted-through')) || 0;
  function setThreadsBadge(count) {
    const element = badge();
    if (!element) return;
    element.textContent = String(Math.max(count, 0));
    element.hidden = count <= 0;
  }

  /** The Threads view, when open, reads its list again. */
  let listReading = null;
  function refreshThreadList() {
    if (!document.getElementById('thread-list') || listReading) return;
    listReading = fetch(location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, 'text/html');
        const theirs = fresh.getElementById('thread-list');
        if (theirs) document.getElementById('thread-list')?.replaceWith(document.importNode(theirs, true));
        if (!fresh.getElementById('thread-list-empty')) document.getElementById('thread-list-empty')?.remove();
        document.dispatchEvent(new CustomEvent('wsx:times-changed', { detail: document.getElementById('thread-list') }));
      })
      .catch(() => {})
      .finally(() => { listReading = null; });
  }

  document.addEventListener('wsx:live', (event) => {
    const { type, data } = event.detail;
    if (type === 'thread.updated') {
      showThreadLine(data);
    } else if (type === 'thread.read') {
      if (String(data.workspaceId) === workspaceId) setThreadsBadge(Number(data.unreadTotal) || 0);
      refreshThreadList();
    } else if (type === 'message.created' && data.threadRootId) {
      const follows = (data.followers || []).map(String).includes(viewerId);
      if (!follows) return;
      refreshThreadList();
      // Someone else's reply in a followed thread is unread, unless this page shows that thread
      // (reading it here moves the marker, and `thread.read` brings the exact total).
      const shownHere = threadRoot === String(data.threadRootId) && !document.hidden;
      const counted = Number(event.detail.id) <= countedThrough;
      if (String(data.authorId) !== viewerId && !shownHere && !counted && String(data.workspaceId) === workspaceId) {
        setThreadsBadge((Number(badge()?.textContent) || 0) + 1);
      }
    }
  });
})();
