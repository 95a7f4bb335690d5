// wsx: progressive enhancement. Pages work without this script; with it they stay live.
//
// Live updates: one EventSource per browser, not per tab (browsers allow ~6 HTTP/1.1
// connections per host, so a 7th tab with its own stream would stall). The tab holding the
// Web Lock "wsx-live-leader" opens the stream and relays every event to the other tabs over
// a BroadcastChannel; when it closes, the lock passes to a waiting tab, which reconnects from
// the last event id it saw, so nothing is missed. Every tab ignores ids it has already seen.
'use strict';

/**
 * A part of a message the server rendered once for the page (`<template id="tpl-NAME">`:
 * controls, the edit form, a day's separator, flags, reactions, a preview's removal), cloned,
 * with `id` where the page's id slot stands (`data-id-slot`). Scripts never write that markup
 * themselves. Nil when the page has no such part (a read-only room has no controls).
 */
window.wsxTemplate = function wsxTemplate(name, id) {
  const part = document.getElementById('tpl-' + name)?.content.firstElementChild?.cloneNode(true);
  const slot = document.querySelector('[data-id-slot]')?.dataset.idSlot;
  if (!part || id === undefined || !slot) return part || null;
  for (const element of [part, ...part.querySelectorAll('*')]) {
    for (const attribute of element.attributes) {
      if (attribute.value.includes(slot)) attribute.value = attribute.value.replaceAll(slot, String(id));
    }
  }
  return part;
};

(function () {
  // Every event type the server sends (Sources/wsx-web/Realtime/Event.swift; a test compares).
  const EVENT_TYPES = [
    'user.updated',
    'session.revoked',
    'room.member_added',
    'room.member_removed',
    'room.updated',
    'room.deleted',
    'room.created',
    'channel.created',
    'workspace.updated',
    'workspace.deleted',
    'workspace.member_added',
    'workspace.member_removed',
    'coins.changed',
    'message.created',
    'message.updated',
    'message.deleted',
    'message.preview',
    'thread.updated',
    'thread.read',
    'reactions.changed',
    'status.changed',
    'pins.changed',
    'saved.changed',
    'room.read',
    'room.receipts',
    'notify.changed',
    'invitation.received',
    'invitation.resolved',
    'presence.changed',
    'typing',
    'reset',
  ];
  const EPHEMERAL = new Set(['presence.changed', 'typing']);

  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content;

  /** The CSRF token for scripted POSTs (`X-CSRF-Token`). */
  window.wsx = { csrfToken: () => meta('csrf-token') };

  /** Forgets every draft and unsent message this browser keeps, and the rooms it opened: a
   *  shared computer never shows the next person what someone else was writing or reading.
   *  And which push subscription was given to the server for whom (push.js): the server drops
   *  it with the session, and the next person to sign in here gives it again as their own. */
  function forgetWriting() {
    try {
      for (const key of Object.keys(localStorage)) {
        if (['wsx-draft:', 'wsx-unsent:', 'wsx-recent-rooms:', 'wsx-push:', 'wsx-push-checked:']
          .some((prefix) => key.startsWith(prefix))) localStorage.removeItem(key);
      }
    } catch (_) { /* storage off */ }
  }

  const viewerId = meta('viewer-id');
  if (!viewerId) {
    // Signed out (here or on another tab): nothing is live, and nothing written is kept.
    forgetWriting();
    return;
  }
  document.getElementById('logout-form')?.addEventListener('submit', forgetWriting);

  let lastId = Number(meta('last-event-id')) || 0;
  const tabId = Math.random().toString(36).slice(2);
  const channel = 'BroadcastChannel' in window ? new BroadcastChannel('wsx-live') : null;
  const root = document.documentElement;
  root.dataset.liveRole = 'follower';

  // ---- receiving ----------------------------------------------------------------------

  /** Handles one event once, whichever way it arrived. */
  function receive(message) {
    if (message.id) {
      if (message.id <= lastId) return;
      lastId = message.id;
    }
    handle(message.type, message.data);
    document.dispatchEvent(new CustomEvent('wsx:live', { detail: message }));
  }

  const currentWorkspace = meta('workspace-id');
  const currentRoom = document.querySelector('[data-room]')?.dataset.room;

  /** Sets the text of every element marked with `attribute="id"` (names shown in many places). */
  function setText(attribute, id, text) {
    for (const el of document.querySelectorAll(`[${attribute}="${CSS.escape(String(id))}"]`)) el.textContent = text;
  }

  /** Says, at the top of the page, that what it shows is gone (its text comes from the page). */
  function pageGone(reason) {
    const notice = document.getElementById('page-gone');
    if (!notice) return;
    notice.textContent = notice.dataset[reason] || '';
    notice.hidden = false;
    root.dataset.gone = reason;
    for (const form of document.querySelectorAll('main form')) {
      for (const control of form.elements) control.disabled = true;
    }
  }

  function removeSidebarEntry(attribute, id) {
    for (const el of document.querySelectorAll(`#sidebar [${attribute}="${CSS.escape(String(id))}"]`)) {
      el.closest('li')?.remove();
    }
  }

  // ---- room lists ------------------------------------------------------------------------

  /** Takes the room lists (the sidebar's, and the home page's) from the workspace's home page,
   *  read again: a DM someone started, a channel joined on another tab or device, a room
   *  deleted, each shows with its badge on every tab. One read at a time; events that arrive
   *  during it ask for one more. */
  let listsReading = null;
  function refreshRoomLists() {
    const url = meta('workspace-url');
    if (!url) return;
    if (listsReading) { listsReading.again = true; return; }
    listsReading = { again: false };
    // While the lists are read again, counts come from the server (chat.js: resyncBadges).
    root.dataset.listsReading = 'yes';
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, 'text/html');
        for (const id of ['sidebar-channels', 'sidebar-dms', 'sidebar-archived', 'sidebar-archived-heading', 'home-channels', 'home-dms']) {
          const mine = document.getElementById(id);
          const theirs = fresh.getElementById(id);
          if (mine && theirs) mine.replaceWith(document.importNode(theirs, true));
        }
        if (!fresh.getElementById('home-dms-empty')) document.getElementById('home-dms-empty')?.remove();
        // The room on screen stays marked as the current one, and counts as read.
        for (const link of document.querySelectorAll(`#sidebar [data-room-link="${CSS.escape(currentRoom || '')}"]`)) {
          link.classList.add('current');
          link.setAttribute('aria-current', 'page');
          link.dataset.unreadCount = '0';
          link.dataset.mentionCount = '0';
          link.closest('li')?.classList.remove('unread');
          const badge = link.querySelector('[data-unread]');
          if (badge) badge.hidden = true;
        }
      })
      .catch(() => {})
      .finally(() => {
        const again = listsReading.again;
        listsReading = null;
        if (again) {
          refreshRoomLists();
        } else {
          // The counts are fetched again in any case (chat.js), then counted live as before.
          document.dispatchEvent(new CustomEvent('wsx:rooms-listed'));
          delete root.dataset.listsReading;
        }
      });
  }

  /** Whether an event is about a room of the workspace on screen that the viewer is in or left. */
  function concernsMyRooms(data) {
    if (String(data.workspaceId) !== currentWorkspace) return false;
    return !data.userIds || data.userIds.map(String).includes(viewerId);
  }

  /** Whether the sidebar lists `roomId` as a group conversation. */
  function isListedGroup(roomId) {
    return !!document.querySelector(`#sidebar [data-room-link="${CSS.escape(String(roomId))}"][data-group="yes"]`);
  }

  /** On a group's page, its members panel and name, read again from the page (someone joined
   *  or left). Nothing when the viewer is the one who left: the page is no longer theirs. */
  function refreshGroupMembers() {
    const panel = document.getElementById('group-members');
    if (!panel) return;
    fetch(location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, 'text/html');
        const theirs = fresh.getElementById('group-members');
        if (!theirs) return;
        theirs.open = panel.open;
        document.getElementById('group-members')?.replaceWith(document.importNode(theirs, true));
        const name = fresh.querySelector('.room-header [data-room-name]')?.textContent;
        const mine = document.querySelector('.room-header [data-room-name]');
        if (name && mine) mine.textContent = name;
      })
      .catch(() => {});
  }

  /** An invitation that arrived: added to the list on the workspaces page, from its template
   *  (the page's own words; the event's text goes in as textContent). */
  function showInvitation(data) {
    const section = document.getElementById('pending-invitations');
    const template = document.getElementById('invitation-template');
    if (!section || !template || !/^\/(?!\/)/.test(String(data.url || ''))) return;
    if (section.querySelector(`[data-invite="${CSS.escape(String(data.inviteId))}"]`)) return;
    const item = template.content.firstElementChild.cloneNode(true);
    item.dataset.invite = String(data.inviteId);
    item.querySelector('[data-slot="workspace"]').textContent = data.workspaceName;
    item.querySelector('[data-slot="from"]').textContent = (section.dataset.from || '{0}').replace('{0}', data.inviterNickname);
    item.querySelector('[data-slot="link"]').href = data.url;
    section.querySelector('.invitation-list').prepend(item);
    section.hidden = false;
  }

  function forgetInvitation(data) {
    const section = document.getElementById('pending-invitations');
    if (!section) return;
    section.querySelector(`[data-invite="${CSS.escape(String(data.inviteId))}"]`)?.remove();
    if (!section.querySelector('[data-invite]')) section.hidden = true;
  }

  function handle(type, data) {
    switch (type) {
      case 'invitation.received':
        showInvitation(data);
        break;
      case 'invitation.resolved':
        forgetInvitation(data);
        break;
      case 'room.updated':
        setText('data-room-name', data.roomId, data.name);
        // Archived or brought back while open: the page shows the notice or the composer again.
        // (Not while this page is already leaving by a form it sent, e.g. the one that did it.)
        if (String(data.roomId) === currentRoom && !!data.archived !== (document.querySelector('[data-room]')?.dataset.archived === 'yes')
            && !sendingForm) {
          location.reload();
          return;
        }
        setText('data-room-description', data.roomId, data.description);
        // Archived, or brought back: the sidebar lists it under another heading.
        if (!!data.archived !== !!document.querySelector(`#sidebar-archived [data-room-link="${CSS.escape(String(data.roomId))}"]`)) {
          refreshRoomLists();
        }
        break;
      case 'room.deleted':
        removeSidebarEntry('data-room-name', data.roomId);
        for (const el of document.querySelectorAll(`main [data-room-name="${CSS.escape(String(data.roomId))}"]`)) el.closest('li')?.remove();
        if (String(data.roomId) === currentRoom) pageGone('roomDeleted');
        break;
      case 'room.created':
      case 'room.member_added':
      case 'room.member_removed':
        // A group's name is its members': theirs changes for everyone still in it.
        if (concernsMyRooms(data) || isListedGroup(data.roomId)) refreshRoomLists();
        if (type !== 'room.created' && String(data.roomId) === currentRoom) refreshGroupMembers();
        break;
      case 'message.created': {
        // A message of a room the lists do not show yet (a DM's first message, committed after
        // the room was read) or without its last-message line: read them again.
        if (String(data.workspaceId) !== currentWorkspace) break;
        const room = CSS.escape(String(data.roomId));
        const listed = document.querySelector(`#sidebar [data-room-link="${room}"]`);
        const homeDM = document.querySelector(`#home-dms [data-dm="${room}"]`);
        if (!listed || (homeDM && !homeDM.querySelector('[data-last-message]'))) refreshRoomLists();
        break;
      }
      case 'workspace.updated':
        setText('data-workspace-name', data.workspaceId, data.name);
        break;
      case 'workspace.deleted':
        removeSidebarEntry('data-workspace-name', data.workspaceId);
        if (String(data.workspaceId) === currentWorkspace) pageGone('workspaceDeleted');
        break;
      case 'workspace.member_removed':
        if (String(data.userId) === viewerId) {
          removeSidebarEntry('data-workspace-name', data.workspaceId);
          if (String(data.workspaceId) === currentWorkspace) pageGone('removed');
        }
        break;
      case 'coins.changed':
        for (const el of document.querySelectorAll('[data-coin-balance]')) el.textContent = String(data.balance);
        break;
      case 'user.updated':
        if (String(data.userId) === viewerId && data.nickname) {
          for (const el of document.querySelectorAll('.viewer-name')) el.textContent = data.nickname;
        }
        break;
      case 'reset':
        // Too much was missed to catch up event by event: start over from a fresh page.
        location.reload();
        break;
    }
  }

  let offlineTimer = null;
  function showStatus(online) {
    const notice = document.getElementById('live-status');
    clearTimeout(offlineTimer);
    if (!notice) return;
    if (online) {
      notice.hidden = true;
    } else {
      // A blink of a reconnect is not worth a notice.
      offlineTimer = setTimeout(() => { notice.hidden = false; }, 1000);
    }
    root.dataset.liveOnline = online ? 'yes' : 'no';
  }

  // The leader remembers what it relayed since its stream began, so a tab whose script loaded
  // late (after events were relayed) can catch up: it says hello with its last id.
  const relayed = [];
  let relayedSince = null;
  const RELAY_MEMORY = 2000;

  if (channel) {
    channel.onmessage = (event) => {
      const message = event.data;
      if (message.kind === 'event') receive(message);
      else if (message.kind === 'status') showStatus(message.online);
      else if (message.kind === 'ended') location.reload();
      else if (message.kind === 'hello' && relayedSince !== null) {
        if (message.after >= relayedSince) {
          channel.postMessage({ kind: 'catch-up', to: message.tab, events: relayed.filter((e) => e.id > message.after) });
        } else {
          channel.postMessage({ kind: 'catch-up', to: message.tab, tooOld: true });
        }
      } else if (message.kind === 'catch-up' && message.to === tabId) {
        if (message.tooOld) location.reload();
        else for (const missed of message.events) receive(missed);
      }
    };
    channel.postMessage({ kind: 'hello', tab: tabId, after: lastId });
  }

  // ---- leading --------------------------------------------------------------------------

  let leading = false;
  function lead() {
    root.dataset.liveRole = 'leader';
    if (leading) { openStream(); return undefined; }
    leading = true;
    openStream();
    // Hold the lock for as long as this tab lives.
    return new Promise(() => {});
  }

  function openStream() {
    if (relayedSince === null) relayedSince = lastId;
    const source = new EventSource(meta('events-url') + '?lastEventId=' + encodeURIComponent(lastId));
    const broadcast = (message) => { if (channel) channel.postMessage(message); };

    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => {
        let data = {};
        try { data = JSON.parse(event.data); } catch (_) { /* keep {} */ }
        // Presence and typing are never stored: they carry no id (and keep the last one's).
        const message = { kind: 'event', id: EPHEMERAL.has(type) ? 0 : Number(event.lastEventId) || 0, type, data };
        relayed.push(message);
        if (relayed.length > RELAY_MEMORY) {
          // Forgotten events can no longer be replayed to a late tab: it reloads instead.
          const forgotten = relayed.splice(0, relayed.length - RELAY_MEMORY);
          relayedSince = Math.max(relayedSince, forgotten[forgotten.length - 1].id);
        }
        broadcast(message);
        receive(message);
      });
    }
    source.onopen = () => { broadcast({ kind: 'status', online: true }); showStatus(true); };
    source.onerror = async () => {
      if (leaving) return; // this page is going away; another tab takes over
      if (source.readyState === EventSource.CLOSED) {
        // The stream was refused. Only a lost session sends every tab to the login page;
        // anything else (a proxy hiccup) is retried.
        if (await sessionIsGone()) {
          broadcast({ kind: 'ended' });
          location.reload();
        } else {
          setTimeout(lead, 2000);
        }
      } else {
        // Reconnecting by itself, with Last-Event-ID.
        broadcast({ kind: 'status', online: false });
        showStatus(false);
      }
    };
  }

  let leaving = false;
  window.addEventListener('pagehide', () => { leaving = true; });
  // A plain form on its way (no script took it over): the page it leads to is on its way too.
  let sendingForm = false;
  document.addEventListener('submit', (event) => { if (!event.defaultPrevented) sendingForm = true; });
  window.addEventListener('pageshow', () => { sendingForm = false; });

  /** Whether this browser is signed out: the page itself now redirects to the login page. */
  async function sessionIsGone() {
    try {
      const response = await fetch(location.pathname, { method: 'HEAD', redirect: 'manual', credentials: 'same-origin' });
      return response.type === 'opaqueredirect' || response.status === 401;
    } catch (_) {
      return false;
    }
  }

  if (navigator.locks && channel) {
    navigator.locks.request('wsx-live-leader', lead);
  } else {
    // No Web Locks (an insecure http:// origin): every tab keeps its own stream.
    lead();
  }
})();

// Copy buttons (invitation and join links): the field's text to the clipboard, and the button
// says so for a moment. Without a script the field is there to select and copy by hand.
(function () {
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-copy]');
    if (!button) return;
    const field = document.getElementById(button.dataset.copy);
    if (!field) return;
    const label = button.textContent;
    const done = () => {
      button.textContent = button.dataset.copied || label;
      setTimeout(() => { button.textContent = label; }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, () => { field.select(); });
    } else {
      field.select();
      document.execCommand('copy');
      done();
    }
  });
})();
