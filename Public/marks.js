// wsx pins and saved messages: "Pin" and "Save" among a message's actions, in place.
//
// Without this script a member pins and saves a message from the page behind its "React" link
// (plain forms), and the room header links to the room's pinned messages. With it, each message
// a member can act on gets "Pin"/"Unpin" and "Save"/"Unsave" buttons that answer at once; a
// message says "📌 Pinned" / "🔖 Saved" (the same markup as `Templates/message_flags.mustache`),
// and `pins.changed` (the room's) and `saved.changed` (the viewer's own, from their other tabs)
// keep every tab's messages and the header's count as they are.
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
    pinned: { flag: 'flag-pinned', icon: '📌', label: 'Pinned', on: 'pin', off: 'unpin', add: 'Pin', remove: 'Unpin', button: 'message-pin' },
    saved: { flag: 'flag-saved', icon: '🔖', label: 'Saved', on: 'save', off: 'unsave', add: 'Keep', remove: 'Unkeep', button: 'message-save' },
  };

  const isOn = (message, mark) => !!message.querySelector('.' + MARKS[mark].flag);

  /** Draws the flags line of a message with `mark` on or off; pinned first, as the server does. */
  function setFlag(message, mark, on) {
    if (isOn(message, mark) === on) return syncButton(message, mark);
    let flags = message.querySelector('.message-flags');
    if (on) {
      if (!flags) {
        flags = document.createElement('p');
        flags.className = 'message-flags';
        const before = message.querySelector('form.reactions, .message-actions, .edit-form');
        if (before) before.before(flags); else message.querySelector('.message-main')?.append(flags);
      }
      const span = document.createElement('span');
      span.className = MARKS[mark].flag;
      span.textContent = `${MARKS[mark].icon} ${text(MARKS[mark].label)}`;
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

  /** Adds "Pin" and "Save" to a message's actions (room members only). */
  function addButtons(message) {
    const actions = message.querySelector('.message-actions');
    if (!actions || !room.dataset.pinUrl || actions.querySelector('.message-pin')) return;
    const buttons = Object.keys(MARKS).map((mark) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link-button ' + MARKS[mark].button;
      button.dataset.mark = mark;
      if (message.tabIndex === -1) button.tabIndex = -1; // the list's roving Tab stop is elsewhere
      return button;
    });
    // After "React", before "Edit" and "Delete".
    const react = actions.querySelector('.message-react');
    if (react) react.after(' ', buttons[0], ' ', buttons[1], ' '); else actions.prepend(buttons[0], ' ', buttons[1], ' ');
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
