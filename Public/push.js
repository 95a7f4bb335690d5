// wsx Web Push: notifications that reach a person with no wsx tab open.
//
// On a signed-in page of a server with push on (`<meta name="push-key-url">`), registers the
// service worker (/sw.js, scope /: the offline page and the notifications, Public/sw.js). Once
// the person allows notifications (chat.js's "알림 켜기" button asks; allowing in the browser's
// own settings counts too), subscribes with the browser's push service using the server's VAPID
// key and gives the server the subscription (`POST /push/subscriptions`, JSON, X-CSRF-Token).
// The server ties it to this session and deletes it when the session ends.
//
// The browser keeps one subscription for the site, whoever is signed in; this page remembers,
// per person, the endpoint it gave the server (`wsx-push:<viewer id>`) and gives it again when it
// changes, or after a day (the server may have dropped it: a password change ends every
// session's). Signing out forgets it (app.js).
//
// Nothing here may break a page: a browser without a push service (or one that cannot reach
// it) just gets no push, and says why in the console at debug level.
'use strict';

(function () {
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content || '';
  const viewerId = meta('viewer-id');
  const keyURL = meta('push-key-url');
  const subscriptionsURL = meta('push-subscriptions-url');
  if (!viewerId || !keyURL || !subscriptionsURL || !('serviceWorker' in navigator)) return;
  const ENDPOINT_KEY = `wsx-push:${viewerId}`;
  const CHECKED_KEY = `wsx-push-checked:${viewerId}`;
  const RECHECK_AFTER = 24 * 60 * 60 * 1000;
  const quiet = (error) => console.debug('wsx push:', error?.message || error);

  const storage = {
    get(key) { try { return localStorage.getItem(key); } catch (_) { return null; } },
    set(key, value) { try { localStorage.setItem(key, value); } catch (_) { /* storage off */ } },
  };

  const registering = navigator.serviceWorker.register('/sw.js', { scope: '/' })
    .catch((error) => { quiet(error); return null; });

  /** "BASE64URL" (no padding) → bytes. */
  function bytesOf(text) {
    const base64 = text.trim().replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  }

  function sameBytes(buffer, bytes) {
    if (!buffer) return false;
    const other = new Uint8Array(buffer);
    return other.length === bytes.length && other.every((byte, index) => byte === bytes[index]);
  }

  /** The server's public key: an uncompressed P-256 point (65 bytes, 0x04 first). */
  async function serverKey() {
    const response = await fetch(keyURL, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`push key: HTTP ${response.status}`);
    const key = bytesOf(await response.text());
    if (key.length !== 65 || key[0] !== 4) throw new Error('push key: not a P-256 point');
    return key;
  }

  async function subscribe() {
    if (!('PushManager' in window) || !('Notification' in window) || Notification.permission !== 'granted') return false;
    if (!(await registering)) return false;
    const registration = await navigator.serviceWorker.ready;
    const key = await serverKey();
    let subscription = await registration.pushManager.getSubscription();
    // Made with another key (the server's was replaced): the push service would refuse the
    // server's messages, so it goes, and a new one is made.
    if (subscription && !sameBytes(subscription.options?.applicationServerKey, key)) {
      await subscription.unsubscribe().catch(quiet);
      subscription = null;
    }
    subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    const json = subscription.toJSON();
    const checked = Number(storage.get(CHECKED_KEY)) || 0;
    if (storage.get(ENDPOINT_KEY) === json.endpoint && Date.now() - checked < RECHECK_AFTER) return true;
    const response = await fetch(subscriptionsURL, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': meta('csrf-token') },
      body: JSON.stringify(json),
    });
    if (!response.ok) throw new Error(`subscription refused: HTTP ${response.status}`);
    storage.set(ENDPOINT_KEY, json.endpoint);
    storage.set(CHECKED_KEY, String(Date.now()));
    return true;
  }

  let enabling = null;
  /** Subscribes if notifications are allowed; once at a time. Resolves true when subscribed. */
  function enable() {
    enabling ??= subscribe().catch((error) => { quiet(error); return false; }).finally(() => { enabling = null; });
    return enabling;
  }
  window.wsxPush = { enable };

  if ('Notification' in window && Notification.permission === 'granted') {
    enable();
  } else if ('Notification' in window && Notification.permission === 'default') {
    // Allowed later on this page: by chat.js's button, or in the browser's site settings.
    let asked = false;
    const allowed = () => {
      if (asked || Notification.permission !== 'granted') return;
      asked = true;
      enable();
    };
    navigator.permissions?.query({ name: 'notifications' })
      .then((status) => status.addEventListener('change', allowed))
      .catch(() => {});
    // Browsers without that event: look for a minute after the button is pressed.
    document.getElementById('notify-toggle')?.addEventListener('click', () => {
      const started = Date.now();
      const look = () => {
        allowed();
        if (!asked && Notification.permission === 'default' && Date.now() - started < 60 * 1000) setTimeout(look, 500);
      };
      setTimeout(look, 0);
    });
  }
})();
