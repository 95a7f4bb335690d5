// wsx lightbox: the images of a room open in an overlay <dialog> over the page.
//
// A thumbnail is a link to its image (`a.attachment-image`), so without this script it opens the
// image itself. With it, a plain click shows the image in a modal <dialog>: ←/→ and the buttons
// step through every image in the room's list in order, Esc (native), the close button or a click
// outside the image closes, and focus returns to the thumbnail that opened it. One listener on the
// list serves messages that arrive live as well.
'use strict';

(function () {
  const list = document.getElementById('message-list');
  if (!list || typeof HTMLDialogElement !== 'function') return;

  const label = (name) => document.querySelector(`meta[name="label-${name}"]`)?.content || '';

  let dialog = null;
  let parts = null;
  let current = null; // the thumbnail link shown
  let currentIndex = 0;
  let opener = null; // the thumbnail link that opened the dialog

  const thumbnails = () => Array.from(list.querySelectorAll('a.attachment-image'));

  function element(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text) el.textContent = text;
    return el;
  }

  /** An icon button: the glyph is decoration, the name comes from the page's labels. */
  function iconButton(className, glyph, name) {
    const button = element('button', 'lightbox-button ' + className);
    button.type = 'button';
    button.setAttribute('aria-label', name);
    button.title = name;
    const icon = element('span', 'lightbox-glyph', glyph);
    icon.setAttribute('aria-hidden', 'true');
    button.append(icon);
    return button;
  }

  function build() {
    dialog = element('dialog', 'lightbox');
    dialog.setAttribute('aria-label', label('lightboxlabel'));
    const figure = element('figure', 'lightbox-figure');
    const stage = element('div', 'lightbox-stage');
    const image = element('img', 'lightbox-image');
    image.decoding = 'async';
    stage.append(image);
    const previous = iconButton('lightbox-previous', '‹', label('lightboxprevious'));
    const next = iconButton('lightbox-next', '›', label('lightboxnext'));
    const close = iconButton('lightbox-close', '×', label('lightboxclose'));

    const caption = element('figcaption', 'lightbox-caption');
    const name = element('span', 'lightbox-name');
    const count = element('span', 'lightbox-count');
    const actions = element('span', 'lightbox-actions');
    const open = element('a', 'lightbox-open', label('fileopen'));
    open.target = '_blank';
    open.rel = 'noopener';
    const download = element('a', 'lightbox-download', label('filedownload'));
    actions.append(open, download);
    caption.append(name, count, actions);

    figure.append(stage, caption);
    dialog.append(figure, previous, next, close);
    document.body.append(dialog);
    parts = { image, name, count, open, download, previous, next, close, stage, figure };

    previous.addEventListener('click', () => step(-1));
    next.addEventListener('click', () => step(1));
    close.addEventListener('click', shut);
    // A click on the dark area around the picture (the dialog fills the viewport, so its own
    // backdrop is never hit) closes, like a click on a backdrop.
    dialog.addEventListener('click', (event) => {
      if (event.target === dialog || event.target === stage || event.target === parts.figure) shut();
    });
    // On the document: a click on the picture leaves focus on the page's body.
    document.addEventListener('keydown', (event) => {
      if (!dialog.open || event.defaultPrevented) return;
      if (event.key === 'Tab') { keepFocusInside(event); return; }
      if (event.key === 'Escape') { event.preventDefault(); shut(); return; }
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
      if (!(event.key in moves)) return;
      event.preventDefault();
      step(moves[event.key]);
    });
    // Swipes on touch screens move between images too.
    let swipe = null;
    stage.addEventListener('pointerdown', (event) => {
      if (event.pointerType !== 'mouse') swipe = { x: event.clientX, y: event.clientY };
    });
    stage.addEventListener('pointerup', (event) => {
      if (!swipe) return;
      const dx = event.clientX - swipe.x;
      const dy = event.clientY - swipe.y;
      swipe = null;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) step(dx < 0 ? 1 : -1);
    });
    stage.addEventListener('pointercancel', () => { swipe = null; });
    // Other ways a dialog closes (a phone's back gesture): the same tidying up.
    dialog.addEventListener('close', () => { if (!dialog.open) tidy(); });
  }

  /** Closes the lightbox and gives focus back to the thumbnail that opened it, at once (the
   *  dialog's own close event comes a moment later, maybe after the next thumbnail is chosen). */
  function shut() {
    if (dialog.open) dialog.close();
    tidy();
  }

  function tidy() {
    document.documentElement.classList.remove('lightbox-open');
    parts.image.removeAttribute('src');
    if (opener?.isConnected) opener.focus({ preventScroll: true });
    opener = null;
    current = null;
  }

  /** Tab past the last control comes round to the first, and back (a modal dialog makes the
   *  page inert, but the browser would still let focus leave for its own toolbar). */
  function keepFocusInside(event) {
    const controls = Array.from(dialog.querySelectorAll('a[href], button')).filter((el) => !el.disabled && el.getClientRects().length);
    if (!controls.length) return;
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (event.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (document.activeElement === last || !dialog.contains(document.activeElement))) {
      event.preventDefault();
      first.focus();
    }
  }

  /** Shows the image of thumbnail link `link` (the position counted among `all`). */
  function show(link, all) {
    current = link;
    currentIndex = all.indexOf(link);
    const thumbnail = link.querySelector('img');
    const name = thumbnail?.alt || '';
    const { image } = parts;
    image.alt = name;
    const url = link.getAttribute('href');
    image.src = url;
    parts.name.textContent = name;
    parts.name.title = name;
    parts.count.textContent = all.length > 1 ? `${currentIndex + 1} / ${all.length}` : '';
    parts.open.href = url;
    parts.download.href = url;
    parts.download.setAttribute('download', name);
    parts.previous.disabled = currentIndex <= 0;
    parts.next.disabled = currentIndex >= all.length - 1;
    parts.previous.hidden = parts.next.hidden = all.length < 2;
    dialog.dataset.index = String(currentIndex);
  }

  /** Moves `by` images (±Infinity: the first or last), staying within the list. */
  function step(by) {
    const all = thumbnails();
    if (!all.length) return;
    let index = all.indexOf(current);
    if (index < 0) index = Math.min(currentIndex, all.length - 1); // its message went away
    const target = Math.max(0, Math.min(all.length - 1, index + by));
    if (all[target] === current) return;
    show(all[target], all);
    // A button that just became disabled drops focus: hand it to one that still works.
    const focused = document.activeElement;
    if (focused?.disabled || !dialog.contains(focused)) {
      const other = focused === parts.previous ? parts.next : parts.previous;
      (other.disabled || other.hidden ? parts.close : other).focus();
    }
  }

  function open(link) {
    if (!dialog) build();
    opener = link;
    show(link, thumbnails());
    document.documentElement.classList.add('lightbox-open');
    dialog.showModal();
    parts.close.focus();
  }

  list.addEventListener('click', (event) => {
    const link = event.target.closest?.('a.attachment-image');
    if (!link || !list.contains(link)) return;
    // New tab, new window, download: the browser's own business.
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    open(link);
  });
})();
