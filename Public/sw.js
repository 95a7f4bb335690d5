// wsx service worker, served at /sw.js so that its scope is the whole site (`/`).
//
// Three jobs, and nothing else:
// - Offline: a page the browser navigates to comes from the network as always; only when the
//   network cannot be reached does the worker answer with the offline page it keeps. It keeps
//   that page and the two static files it links, fetched without cookies, and never stores any
//   other response: nothing one account saw can be shown to another, or to nobody signed in.
// - Push: a message the server sends through the browser's push service (Public/push.js
//   subscribes) becomes a notification; the payload is JSON
//   {title, body, url, tag, roomId, messageId}, decrypted by the browser.
// - A click on a notification focuses a wsx tab and opens the message there, or opens a new tab.
'use strict';

// Bump when the kept files change: the new worker installs a new cache and deletes the old one.
const CACHE = 'wsx-offline-v1';
const OFFLINE_PAGE = '/static/offline.html';
// What the offline page needs (it links these without a version, so they match exactly).
const KEPT = [OFFLINE_PAGE, '/static/app.css', '/static/favicon.svg'];
const ICON = '/static/icons/icon-192.png';
const BADGE = '/static/icons/badge-96.png';

/** Keeps the offline page and its files, fetching those not kept yet (none, usually); false
 *  when they could not be had. Once at a time. */
let keeping = null;
function keep() {
  keeping ??= (async () => {
    const cache = await caches.open(CACHE);
    const missing = [];
    for (const path of KEPT) if (!(await cache.match(path))) missing.push(path);
    // `reload`: the files as the server has them now, not an older copy from the HTTP cache.
    if (missing.length) await cache.addAll(missing.map((path) => new Request(path, { cache: 'reload', credentials: 'omit' })));
    return true;
  })().catch(() => false).finally(() => { keeping = null; });
  return keeping;
}

self.addEventListener('install', (event) => {
  // Without them the worker still installs (notifications do not need them); the next page
  // that loads tries again.
  event.waitUntil(keep().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('wsx-') && name !== CACHE) await caches.delete(name);
    }
    // Start the page's request as the worker wakes up, instead of after (navigations only).
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable().catch(() => {});
    await self.clients.claim();
  })());
});

/** The offline page, as an HTML document whatever type the server gave the file. */
async function offlinePage() {
  const kept = await caches.match(OFFLINE_PAGE, { cacheName: CACHE });
  if (!kept) return Response.error();
  return new Response(await kept.arrayBuffer(), {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    },
  });
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.mode === 'navigate') {
    // Had the worker installed while they could not be fetched, they are fetched now.
    event.waitUntil(keep());
    event.respondWith((async () => {
      try {
        // The page itself, from the network (the preload, when the browser started one).
        return (await event.preloadResponse) || await fetch(request);
      } catch (_) {
        return offlinePage();
      }
    })());
    return;
  }
  // The offline page's own stylesheet and icon, kept for when the network is gone. Pages link
  // these with `?v=`, which never matches here: they are left to the browser.
  const url = new URL(request.url);
  if (request.method === 'GET' && url.origin === self.location.origin && !url.search && KEPT.includes(url.pathname)
      && url.pathname !== OFFLINE_PAGE) {
    event.respondWith(fetch(request).catch(async () =>
      (await caches.match(url.pathname, { cacheName: CACHE })) || Response.error()));
  }
  // Anything else: no answer from the worker, so the browser fetches it as if there were none.
});

// `value` as a path on this site (a message's link, with its query and #m-id); the home page
// for anything else (another site, not a URL).
function pathOnThisSite(value) {
  try {
    const url = new URL(String(value || '/'), self.location.origin);
    if (url.origin === self.location.origin) return url.pathname + url.search + url.hash;
  } catch (_) { /* not a URL */ }
  return '/';
}

self.addEventListener('push', (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (_) {
    message = {};
  }
  if (!message || typeof message !== 'object') message = {};
  const title = typeof message.title === 'string' && message.title ? message.title : 'wsx';
  const options = {
    body: typeof message.body === 'string' ? message.body : '',
    data: { url: pathOnThisSite(message.url) },
    icon: ICON,
    badge: BADGE,
  };
  if (typeof message.tag === 'string' && message.tag) options.tag = message.tag;
  // A push the browser was told to show (userVisibleOnly) always shows something.
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(pathOnThisSite(event.notification.data?.url), self.location.origin).href;
  event.waitUntil((async () => {
    // wsx's windows this worker controls, the one in use first.
    const windows = (await self.clients.matchAll({ type: 'window' }))
      .filter((client) => new URL(client.url).origin === self.location.origin);
    windows.sort((a, b) => Number(b.focused) - Number(a.focused)
      || Number(b.visibilityState === 'visible') - Number(a.visibilityState === 'visible'));
    for (const client of windows) {
      try {
        const focused = await client.focus();
        await (focused || client).navigate(target);
        return;
      } catch (_) { /* that window would not go: try the next, then a new one */ }
    }
    await self.clients.openWindow(target);
  })());
});

// The push service replaced or dropped the subscription: subscribe again with the same key.
// The worker cannot tell the server (it holds no CSRF token); the next wsx page does
// (Public/push.js posts any subscription whose endpoint it has not posted yet).
self.addEventListener('pushsubscriptionchange', (event) => {
  const key = event.oldSubscription?.options?.applicationServerKey;
  if (event.newSubscription || !key) return;
  event.waitUntil(self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key })
    .catch(() => {}));
});
