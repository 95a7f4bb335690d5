// wsx people picker: the "New conversation" page's list, narrowed as one types a name.
//
// Without this script the page is a plain list of checkboxes (every workspace member) and a
// submit button; with it, a search field above the list hides the people whose names do not
// match what was typed, by the quick switcher's matcher (switcher.js: case-insensitive
// substrings, and Korean initial consonants, so ㄱㅁ finds 김민아). Hidden people stay ticked
// if they were: filtering never changes the choice.
'use strict';

(function () {
  const filter = document.getElementById('conversation-filter');
  const form = document.getElementById('conversation-form');
  if (!filter || !form) return;
  filter.hidden = false;
  const people = [...form.querySelectorAll('[data-person-name]')];
  const matches = (name, query) => (window.wsxSwitcher
    ? !!window.wsxSwitcher.match(name, query)
    : name.toLocaleLowerCase().includes(query.trim().toLocaleLowerCase()));
  filter.addEventListener('input', () => {
    const wanted = filter.value.trim();
    for (const person of people) person.hidden = wanted !== '' && !matches(person.dataset.personName, wanted);
  });
  // Enter in the search field narrows; it does not send the form half-chosen.
  filter.addEventListener('keydown', (event) => { if (event.key === 'Enter') event.preventDefault(); });
})();
