// Merchant portal: copy buttons beside identifiers, and the payment filters folded away on a phone.
// The pages work without it: the identifiers stay selectable, and the filters stay open.
(function () {
  'use strict';
  var live = document.getElementById('copy-status');

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement('textarea');
      area.value = text;
      area.className = 'visually-hidden';
      area.setAttribute('readonly', '');
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand('copy');
      document.body.removeChild(area);
      if (ok) resolve();
      else reject(new Error('copy refused'));
    });
  }

  function announce(button) {
    var word = button.getAttribute('data-copied') || 'Copied';
    button.classList.add('copied');
    if (live) {
      // a change of text is what screen readers announce: clear it first so a second copy is announced too
      live.textContent = '';
      setTimeout(function () { live.textContent = word; }, 50);
    }
    setTimeout(function () { button.classList.remove('copied'); }, 2000);
  }

  var buttons = document.querySelectorAll('button.copy[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].hidden = false;
    buttons[i].addEventListener('click', function (event) {
      var button = event.currentTarget;
      copyText(button.getAttribute('data-copy') || '').then(function () { announce(button); }, function () {});
    });
  }

  // what the last submit answered (an error summary, or an action's result) takes the focus, so a keyboard or
  // screen reader starts there rather than at the top of the page
  var first = document.querySelector('[data-focus-on-load]');
  if (first) first.focus();

  // a phone sees its results first: the filters fold behind their summary (never when a filter has an error)
  var filters = document.querySelector('details[data-fold-narrow]');
  if (filters && window.matchMedia('(max-width: 40rem)').matches) filters.open = false;
})();
