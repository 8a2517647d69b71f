// Card page hints: Luhn check, expiry and card brand, shown next to each field before the form is sent.
// The server checks everything again; without this script the page works the same.
(function () {
  var form = document.getElementById('card-form');
  if (!form) return;
  var number = document.getElementById('card');
  var brandHint = document.getElementById('card-brand');
  var BRANDS = [
    ['American Express', /^3[47]/],
    ['Diners Club', /^3(0[0-5]|[68])/],
    ['JCB', /^35(2[89]|[3-8])/],
    ['Discover', /^(6011|65|64[4-9])/],
    ['UnionPay', /^62/],
    ['Mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/],
    ['Maestro', /^(5[06-9]|6\d)/],
    ['Visa', /^4/],
  ];
  function digits(v) {
    return v.replace(/[\s-]/g, '');
  }
  function luhn(pan) {
    if (!/^\d{12,19}$/.test(pan)) return false;
    var sum = 0;
    var dbl = false;
    for (var i = pan.length - 1; i >= 0; i--) {
      var d = pan.charCodeAt(i) - 48;
      if (dbl) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      dbl = !dbl;
    }
    return sum % 10 === 0;
  }
  function brandOf(pan) {
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i][1].test(pan)) return BRANDS[i][0];
    return '';
  }
  function show(name, message) {
    var el = document.getElementById(name + '-error');
    var input = document.getElementById(name);
    if (el) el.textContent = message;
    if (input) {
      input.parentNode.classList.toggle('invalid', Boolean(message));
      input.setAttribute('aria-invalid', message ? 'true' : 'false');
    }
  }
  function check() {
    var errors = {};
    var pan = digits(number.value);
    if (!/^\d{12,19}$/.test(pan)) errors.card = 'Enter the 12 to 19 digits of the card number';
    else if (!luhn(pan)) errors.card = 'This card number is not valid';
    if (!document.getElementById('cardholder').value.trim()) errors.cardholder = 'Enter the name on the card';
    var month = document.getElementById('expiration_month').value.trim();
    var year = document.getElementById('expiration_year').value.trim();
    if (!/^(0?[1-9]|1[0-2])$/.test(month)) errors.expiration_month = 'Enter the month, 01 to 12';
    if (!/^(\d{2}|\d{4})$/.test(year)) errors.expiration_year = 'Enter the year, such as 2030';
    if (!errors.expiration_month && !errors.expiration_year) {
      var y = year.length === 2 ? 2000 + Number(year) : Number(year);
      var now = new Date();
      if (y < now.getFullYear() || (y === now.getFullYear() && Number(month) < now.getMonth() + 1)) errors.expiration_year = 'This card has expired';
    }
    if (!/^\d{3,4}$/.test(document.getElementById('security_code').value)) errors.security_code = 'Enter the 3 or 4 digit security code';
    return errors;
  }
  number.addEventListener('input', function () {
    var pan = digits(number.value);
    brandHint.textContent = brandOf(pan);
    if (pan.length >= 12 && luhn(pan)) show('card', '');
  });
  number.addEventListener('blur', function () {
    var pan = digits(number.value);
    if (pan) show('card', luhn(pan) ? '' : 'This card number is not valid');
  });
  form.setAttribute('novalidate', '');
  form.addEventListener('submit', function (event) {
    var errors = check();
    ['cardholder', 'card', 'expiration_month', 'expiration_year', 'security_code'].forEach(function (name) {
      show(name, errors[name] || '');
    });
    var first = Object.keys(errors)[0];
    if (first) {
      event.preventDefault();
      document.getElementById(first).focus();
      return;
    }
    var button = document.getElementById('pay-button');
    // a second click must not send a second request (the server would answer the first payment anyway)
    setTimeout(function () {
      button.disabled = true;
    }, 0);
  });
  if (number.value) brandHint.textContent = brandOf(digits(number.value));
})();
