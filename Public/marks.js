// wsx pins and saved messages: "Pin" and "Save" among a message's actions, in place.
//
// Without this script a member pins and saves a message from the page behind its "React" link
// (plain forms), and the room header links to the room's pinned messages. With it, the
// "Pin"/"Unpin" and "Save"/"Unsave" buttons the server put (hidden) among each message's
// actions show and answer at once; a message says "📌 Pinned" / "🔖 Saved" (cloned from the
// page's `tpl-flags`, rendered by `Templates/message_flags.mustache`), and `pins.changed` (the
// room's) and `saved.changed` (the viewer's own, from their other tabs) keep every tab's
// messages and the header's count as they are.
'use strict';

(function () {
  const room = document.querySelector('[data-room]');
  const list = document.getElementById('message-list');
  if (!room || !list) return;

  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content || '';
  const csrf = () => meta('csrf-token');
  const text = (name) => room.dataset['label' + name] || '';
  const markURL = (kind, id) => room.dataset[kind + 'Url']?.replace(room.dataset.idSlot, id);

  /** The two marks: which flag says so, and the button's words and URLs. */
  const MARKS = {
    pinned: { flag: 'flag-pinned', on: 'pin', off: 'unpin', add: 'Pin', remove: 'Unpin', button: 'message-pin' },
    saved: { flag: 'flag-saved', on: 'save', off: 'unsave', add: 'Keep', remove: 'Unkeep', button: 'message-save' },
  };

  const isOn = (message, mark) => !!message.querySelector('.' + MARKS[mark].flag);

  /** Draws the flags line of a message with `mark` on or off; pinned first, as the server does. */
  function setFlag(message, mark, on) {
    if (isOn(message, mark) === on) return syncButton(message, mark);
    let flags = message.querySelector('.message-flags');
    if (on) {
      const both = window.wsxTemplate('flags');
      if (!both) return syncButton(message, mark);
      if (!flags) {
        flags = both.cloneNode(false);
        const before = message.querySelector('form.reactions, .message-actions, .edit-form');
        if (before) before.before(flags); else message.querySelector('.message-main')?.append(flags);
      }
      const span = both.querySelector('.' + MARKS[mark].flag);
      if (mark === 'pinned') flags.prepend(span); else flags.append(span);
    } else {
      flags?.querySelector('.' + MARKS[mark].flag)?.remove();
      if (flags && !flags.children.length) flags.remove();
    }
    syncButton(message, mark);
  }

  function syncButton(message, mark) {
    const button = message.querySelector('.' + MARKS[mark].button);
    if (!button) return;
    const on = isOn(message, mark);
    button.textContent = text(on ? MARKS[mark].remove : MARKS[mark].add);
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
  }

  /** Gives a message's controls "Pin" and "Save" (cloned from the page's `tpl-marks`, which
   *  the server renders once: without this script they could do nothing), after "React",
   *  saying what each would do now. */
  function addButtons(message) {
    if (!room.dataset.pinUrl) return;
    const actions = message.querySelector(':scope > .message-main > .message-actions');
    if (!actions) return;
    if (!actions.querySelector('button[data-mark]')) {
      const marks = window.wsxTemplate('marks');
      if (!marks) return;
      const before = actions.querySelector(':scope > .message-edit, :scope > .message-delete');
      for (const button of marks.querySelectorAll('button[data-mark]')) {
        if (before) before.before(button, ' '); else actions.append(' ', button);
      }
    }
    for (const mark of Object.keys(MARKS)) syncButton(message, mark);
  }

  async function toggle(message, mark) {
    const on = !isOn(message, mark);
    const url = markURL(on ? MARKS[mark].on : MARKS[mark].off, message.dataset.message);
    if (!url) return;
    const response = await fetch(url, {
      method: 'POST', body: new URLSearchParams({ _csrf: csrf() }), credentials: 'same-origin',
      headers: { Accept: 'application/json', 'X-CSRF-Token': csrf() },
    }).catch(() => null);
    if (!response?.ok) return;
    const reply = await response.json().catch(() => null);
    if (!reply) return;
    setFlag(message, mark, mark === 'pinned' ? reply.pinned : reply.saved);
    if (mark === 'pinned') showCount(reply.count);
  }

  /** The header's "📌 N pinned" link, hidden while there are none. */
  function showCount(count) {
    const link = document.getElementById('pins-link');
    if (!link || typeof count !== 'number') return;
    link.querySelector('.pins-count').textContent = (link.dataset.label || '{0}').replace('{0}', count);
    link.hidden = count === 0;
  }

  for (const message of list.querySelectorAll('li.message')) addButtons(message);
  document.addEventListener('wsx:message-added', (event) => addButtons(event.detail));

  list.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-mark]');
    const message = button?.closest('li.message');
    if (!button || !message) return;
    event.preventDefault();
    toggle(message, button.dataset.mark);
  });

  document.addEventListener('wsx:live', (event) => {
    const { type, data } = event.detail;
    if (type === 'pins.changed' && String(data.roomId) === room.dataset.room) {
      const message = document.getElementById('m-' + data.messageId);
      if (message) setFlag(message, 'pinned', data.pinned);
      showCount(data.count);
    } else if (type === 'saved.changed') {
      const message = document.getElementById('m-' + data.messageId);
      if (message) setFlag(message, 'saved', data.saved);
    }
  });
})();
