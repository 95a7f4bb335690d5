// wsx people picker: the "New conversation" page's list, narrowed as one types a name.
//
// Without this script the page is a plain list of checkboxes (every workspace member) and a
// submit button; with it, a search field above the list hides the people whose names do not
// contain what was typed (case-insensitive, Korean as typed). Hidden people stay ticked if they
// were: filtering never changes the choice.
'use strict';

(function () {
  const filter = document.getElementById('conversation-filter');
  const form = document.getElementById('conversation-form');
  if (!filter || !form) return;
  filter.hidden = false;
  const people = [...form.querySelectorAll('[data-person-name]')];
  filter.addEventListener('input', () => {
    const wanted = filter.value.trim().toLocaleLowerCase();
    for (const person of people) {
      person.hidden = wanted !== '' && !person.dataset.personName.toLocaleLowerCase().includes(wanted);
    }
  });
  // Enter in the search field narrows; it does not send the form half-chosen.
  filter.addEventListener('keydown', (event) => { if (event.key === 'Enter') event.preventDefault(); });
})();
