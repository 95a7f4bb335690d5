// wsx drawer: on a phone the sidebar slides over the page from the menu button in the top bar.
// Without this script the button is a link to #sidebar and the stylesheet opens it (:target).
'use strict';

(function () {
  const button = document.getElementById('menu-button');
  const sidebar = document.getElementById('sidebar');
  if (!button || !sidebar) return;
  const scrim = document.getElementById('drawer-scrim');
  const main = document.getElementById('main');
  const phone = window.matchMedia('(max-width: 719.98px)');
  const isOpen = () => document.body.classList.contains('drawer-open');

  function open() {
    document.body.classList.add('drawer-open');
    button.setAttribute('aria-expanded', 'true');
    if (scrim) scrim.hidden = false;
    if (main) main.inert = true; // Tab stays in the drawer (and the top bar)
    const here = sidebar.querySelector('[aria-current="page"]') || sidebar.querySelector('a[href]:not(#drawer-close)');
    here?.focus();
  }

  function close(returnFocus) {
    if (!isOpen()) return;
    document.body.classList.remove('drawer-open');
    button.setAttribute('aria-expanded', 'false');
    if (scrim) scrim.hidden = true;
    if (main) main.inert = false;
    if (returnFocus) button.focus();
  }

  button.addEventListener('click', (event) => {
    event.preventDefault();
    if (isOpen()) close(true); else open();
  });
  document.getElementById('drawer-close')?.addEventListener('click', (event) => {
    event.preventDefault();
    close(true);
  });
  scrim?.addEventListener('click', () => close(true));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && isOpen() && !document.querySelector('dialog[open]')) {
      event.preventDefault();
      close(true);
    }
  });
  // A link followed from the drawer closes it (the page may change in place).
  sidebar.addEventListener('click', (event) => {
    if (event.target.closest('a[href]')) close(false);
  });
  phone.addEventListener('change', () => { if (!phone.matches) close(false); });
})();
