// wsx presence and typing.
//
// Dots: every `[data-presence="<user id>"]` on a page shows that person as online, away or
// offline. The page reads everyone's state (`GET /presence`) when it loads and whenever its
// stream opens, then follows `presence.changed` events; each carries a sequence number, so an
// event older than the snapshot is ignored and none that came while it was read is lost.
//
// Away: this browser is away when none of its tabs is visible and used within ten minutes.
// Every tab tells the others how it is (a BroadcastChannel); the tab that holds the event
// stream tells the server (`POST /presence`) whenever the browser's state changes.
//
// Status: every `[data-status="<user id>"]` shows that person's custom status ("🌴 휴가 중"),
// replaced as `status.changed` events come and cleared when it expires.
//
// Typing: the composer says so at most once every three seconds while its writer types; the
// room shows "민아님이 입력 중…" for six seconds after each signal, or until their message arrives.
'use strict';

(function () {
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content || '';
  const viewerId = meta('viewer-id');
  if (!viewerId) return;
  const csrf = () => meta('csrf-token');
  const root = document.documentElement;
  const post = (url, fields) => fetch(url, {
    method: 'POST', credentials: 'same-origin', keepalive: true,
    body: new URLSearchParams({ _csrf: csrf(), ...fields }),
    headers: { 'X-CSRF-Token': csrf() },
  }).catch(() => null);

  // ---- dots ---------------------------------------------------------------------------------

  const states = new Map();
  let snapshotSequence = null;
  // Changes that come while a snapshot is read, applied after it (those it already has are skipped).
  let reading = 0;
  const early = [];

  function paint(userId) {
    const state = states.get(String(userId)) || 'offline';
    const text = meta('label-presence' + state);
    for (const dot of document.querySelectorAll(`[data-presence="${CSS.escape(String(userId))}"]`)) {
      dot.dataset.state = state;
      dot.setAttribute('role', 'img');
      dot.setAttribute('aria-label', text);
      dot.title = text;
      dot.hidden = false;
    }
  }

  function paintAll() {
    const people = new Set([...document.querySelectorAll('[data-presence]')].map((dot) => dot.dataset.presence));
    for (const person of people) paint(person);
  }

  function apply(change) {
    if (reading > 0 || snapshotSequence === null) { early.push(change); return; }
    if (change.sequence <= snapshotSequence) return;
    if (change.state === 'offline') states.delete(String(change.userId));
    else states.set(String(change.userId), change.state);
    paint(change.userId);
  }

  async function readSnapshot() {
    reading += 1;
    const response = await fetch(meta('presence-url'), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .catch(() => null);
    const snapshot = response?.ok ? await response.json().catch(() => null) : null;
    reading -= 1;
    if (snapshot && (snapshotSequence === null || snapshot.sequence >= snapshotSequence)) {
      states.clear();
      for (const [id, state] of Object.entries(snapshot.states || {})) states.set(id, state);
      snapshotSequence = snapshot.sequence;
      paintAll();
    }
    if (reading === 0 && snapshotSequence !== null) for (const change of early.splice(0)) apply(change);
  }
  readSnapshot();
  // Presence changes are never replayed: whatever changed while this browser had no stream (a
  // reconnect, or the page rendered before its stream opened) is read again once the stream is
  // open, which the server signals only when it already delivers to it.
  let wasOnline = root.dataset.liveOnline === 'yes';
  new MutationObserver(() => {
    const online = root.dataset.liveOnline === 'yes';
    if (online && !wasOnline) readSnapshot();
    wasOnline = online;
  }).observe(root, { attributes: true, attributeFilter: ['data-live-online'] });

  // Rooms that appear in the sidebar later (a new DM) get their dot at once.
  new MutationObserver(() => {
    for (const dot of document.querySelectorAll('[data-presence][hidden]')) paint(dot.dataset.presence);
  }).observe(document.body, { childList: true, subtree: true });

  // ---- away ---------------------------------------------------------------------------------

  const IDLE_AFTER = 10 * 60 * 1000;
  const tabId = Math.random().toString(36).slice(2);
  const tabs = new Map(); // other tabs of this browser: id -> in use
  const channel = 'BroadcastChannel' in window ? new BroadcastChannel('wsx-presence') : null;
  let lastInput = Date.now();
  let inUse = null;
  let told = null;

  const isInUse = () => document.visibilityState === 'visible' && Date.now() - lastInput < IDLE_AFTER;

  /** Tells the other tabs how this one is, when that changed; the leader tells the server. */
  function check() {
    const now = isInUse();
    if (now !== inUse) {
      inUse = now;
      channel?.postMessage({ kind: 'tab', tab: tabId, inUse: now });
    }
    report();
  }

  function report() {
    if (root.dataset.liveRole !== 'leader' || root.dataset.liveOnline !== 'yes') return;
    const away = !inUse && ![...tabs.values()].some(Boolean);
    if (away === told) return;
    told = away;
    post(meta('presence-url'), { state: away ? 'away' : 'active' });
  }

  if (channel) {
    channel.onmessage = (event) => {
      const message = event.data;
      if (message.kind === 'tab') tabs.set(message.tab, message.inUse);
      else if (message.kind === 'gone') tabs.delete(message.tab);
      else if (message.kind === 'ask') channel.postMessage({ kind: 'tab', tab: tabId, inUse: isInUse() });
      report();
    };
    channel.postMessage({ kind: 'ask' });
  }
  window.addEventListener('pagehide', () => channel?.postMessage({ kind: 'gone', tab: tabId }));
  document.addEventListener('visibilitychange', check);
  let inputSeen = 0;
  for (const type of ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart']) {
    window.addEventListener(type, () => {
      lastInput = Date.now();
      if (lastInput - inputSeen > 5000 || !inUse) { inputSeen = lastInput; check(); }
    }, { passive: true, capture: true });
  }
  // Idleness has no event of its own: look again every half minute.
  setInterval(check, 30 * 1000);
  // A new stream (this tab took the lead, or reconnected) starts as "in use" on the server.
  new MutationObserver(() => { told = null; check(); })
    .observe(root, { attributes: true, attributeFilter: ['data-live-role', 'data-live-online'] });
  check();

  // ---- typing ---------------------------------------------------------------------------------

  const room = document.querySelector('[data-room]');
  const indicator = document.getElementById('typing-indicator');
  const textarea = document.getElementById('composer-content');
  let lastSignal = 0;
  if (textarea && indicator?.dataset.typingUrl) {
    textarea.addEventListener('input', () => {
      if (!textarea.value.trim() || Date.now() - lastSignal < 3000) return;
      lastSignal = Date.now();
      post(indicator.dataset.typingUrl, {});
    });
    document.getElementById('composer')?.addEventListener('submit', () => { lastSignal = 0; });
  }

  const typists = new Map(); // user id -> { name, timer }

  function showTypists() {
    if (!indicator) return;
    const names = [...typists.values()].map((t) => t.name);
    const say = (template, ...values) => values.reduce((text, value, i) => text.replace(`{${i}}`, value), template);
    indicator.textContent = names.length === 0 ? ''
      : names.length === 1 ? say(indicator.dataset.one, names[0])
        : names.length === 2 ? say(indicator.dataset.two, names[0], names[1])
          : indicator.dataset.many;
  }

  function stopTyping(userId) {
    const typist = typists.get(String(userId));
    if (!typist) return;
    clearTimeout(typist.timer);
    typists.delete(String(userId));
    showTypists();
  }

  // ---- status ---------------------------------------------------------------------------------

  const statusTimers = new Map();
  function showStatus(userId, text, expiresAt) {
    for (const el of document.querySelectorAll(`[data-status="${CSS.escape(String(userId))}"]`)) el.textContent = text || '';
    clearTimeout(statusTimers.get(userId));
    const left = expiresAt ? Date.parse(expiresAt) - Date.now() : NaN;
    if (text && left > 0 && left < 2 ** 31) statusTimers.set(userId, setTimeout(() => showStatus(userId, ''), left));
  }

  document.addEventListener('wsx:live', (event) => {
    const { type, data } = event.detail;
    if (type === 'presence.changed') {
      apply(data);
    } else if (type === 'status.changed') {
      showStatus(data.userId, data.status, data.expiresAt);
    } else if (type === 'typing' && room && String(data.roomId) === room.dataset.room && String(data.userId) !== viewerId) {
      stopTyping(data.userId);
      typists.set(String(data.userId), { name: data.name, timer: setTimeout(() => stopTyping(data.userId), 6000) });
      showTypists();
    } else if (type === 'message.created' && room && String(data.roomId) === room.dataset.room && data.authorId) {
      stopTyping(data.authorId);
    }
  });
})();
