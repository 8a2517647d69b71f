// Card page, saved cards (docs/checkout.md): choosing a saved card hides and disables the new-card fields and asks only
// for that card's security code; choosing "a new card" brings them back. Its submit check runs before card.js's
// (which checks a new card) and stops it when a saved card is chosen. Without this script the page still works
// for a new card; the server checks everything again.
// The partial is included before the card form, so the script waits for the whole page.
(function () {
  function savedCards() {
    var form = document.getElementById('card-form');
    var radios = document.querySelectorAll('input[name="saved_card"]');
    if (!form || radios.length === 0) return;
    var messages = JSON.parse(form.getAttribute('data-messages') || '{}');
    var NEW_CARD = ['cardholder', 'card', 'expiration_month', 'expiration_year', 'security_code'];
    var csc = document.getElementById('saved_security_code');
    var cscField = document.getElementById('saved-csc-field');
    var consent = document.getElementById('save-card-consent');
    function msg(key, params) {
      return (messages[key] || key).replace(/\{(\w+)\}/g, function (whole, name) {
        return params && name in params ? String(params[name]) : whole;
      });
    }
    function chosen() {
      for (var i = 0; i < radios.length; i++) if (radios[i].checked) return radios[i];
      return null;
    }
    function box(input) {
      return input.closest('fieldset') || input.closest('.field');
    }
    function sync() {
      var radio = chosen();
      var saved = Boolean(radio && radio.value);
      NEW_CARD.forEach(function (id) {
        var input = document.getElementById(id);
        if (!input) return;
        input.disabled = saved;
        var container = box(input);
        if (container) container.hidden = saved;
      });
      var hint = document.getElementById('security_code-hint');
      if (hint) hint.hidden = saved;
      cscField.hidden = !saved;
      csc.disabled = !saved;
      if (consent) consent.hidden = saved;
    }
    function showError(text) {
      document.getElementById('saved_security_code-error').textContent = text;
      cscField.classList.toggle('invalid', Boolean(text));
      csc.setAttribute('aria-invalid', text ? 'true' : 'false');
      var summary = document.getElementById('error-summary');
      var list = document.getElementById('error-summary-list');
      if (!summary || !list) return;
      while (list.firstChild) list.removeChild(list.firstChild);
      if (text) {
        var item = document.createElement('li');
        var link = document.createElement('a');
        link.href = '#saved_security_code';
        link.textContent = text;
        item.appendChild(link);
        list.appendChild(item);
      }
      summary.hidden = !text;
    }
    for (var i = 0; i < radios.length; i++) radios[i].addEventListener('change', sync);
    sync();
    // capture on window: runs before the form's own listeners (card.js), which it stops for a saved card
    window.addEventListener(
      'submit',
      function (event) {
        var radio = chosen();
        if (event.target !== form || !radio || !radio.value) return;
        event.stopPropagation();
        var digits = Number(radio.getAttribute('data-csc')) || 3;
        if (!new RegExp('^\\d{' + digits + '}$').test(csc.value)) {
          event.preventDefault();
          showError(msg('error.csc', { digits: digits }));
          csc.focus();
          return;
        }
        showError('');
        var set = function (id, value) {
          var el = document.getElementById(id);
          if (el) el.value = String(value);
        };
        set('browser_screen_width', window.screen.width);
        set('browser_screen_height', window.screen.height);
        set('browser_color_depth', window.screen.colorDepth);
        set('browser_tz_offset', new Date().getTimezoneOffset());
        set('browser_language', navigator.language || '');
        set('browser_javascript_enabled', 'true');
        var button = document.getElementById('pay-button');
        setTimeout(function () {
          if (button) button.disabled = true;
        }, 0);
      },
      true,
    );
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', savedCards);
  else savedCards();
})();
