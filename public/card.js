// Card page: checks the card number (Luhn, accepted brand), expiry and security code as each field is left and
// before the form is sent, shows each problem next to its field and in the error summary (both judged again as
// the shopper fixes them), groups the number's digits as they are
// typed (the caret kept where it was), marks the detected brand, fills the
// 3-D Secure browser data and tells a parent frame that the card was submitted. Every text comes from the
// page's catalogue (data-messages). The server checks everything again; without this script the page works.
(function () {
  var form = document.getElementById('card-form');
  if (!form) return;
  var messages = JSON.parse(form.getAttribute('data-messages') || '{}');
  var accepted = JSON.parse(form.getAttribute('data-brands') || '[]');
  var lang = form.getAttribute('data-lang') || 'en';
  var number = document.getElementById('card');
  var brandHint = document.getElementById('card-brand');
  var summary = document.getElementById('error-summary');
  var FIELDS = ['cardholder', 'card', 'expiration_month', 'expiration_year', 'security_code'];
  // the same rules as src/core/kernel/cards.ts, first match wins
  var BRANDS = [
    ['AMEX', 'American Express', /^3[47]/],
    ['DINERS', 'Diners Club', /^3(0[0-5]|[68])/],
    ['JCB', 'JCB', /^35(2[89]|[3-8])/],
    ['DISCOVER', 'Discover', /^(6011|65|64[4-9])/],
    ['UNIONPAY', 'UnionPay', /^62/],
    ['MASTERCARD', 'Mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/],
    ['MAESTRO', 'Maestro', /^(5[06-9]|6\d)/],
    ['VISA', 'Visa', /^4/],
  ];
  function msg(key, params) {
    var text = messages[key] || key;
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return params && name in params ? String(params[name]) : whole;
    });
  }
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
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i][2].test(pan)) return BRANDS[i];
    return null;
  }
  function cscLength(brand) {
    return brand && brand[0] === 'AMEX' ? 4 : 3;
  }
  function acceptedNames() {
    return accepted
      .map(function (code) {
        for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i][0] === code) return BRANDS[i][1];
        return code;
      })
      .join(', ');
  }
  function showBrand() {
    var brand = brandOf(digits(number.value));
    brandHint.textContent = brand ? brand[1] : '';
    var list = document.getElementById('brand-marks');
    var marks = list.querySelectorAll('.mark');
    var found = false;
    for (var i = 0; i < marks.length; i++) {
      var on = Boolean(brand) && marks[i].getAttribute('data-brand') === brand[0];
      marks[i].classList.toggle('active', on);
      found = found || on;
    }
    // none stands out until the number names one of the marks
    list.classList.toggle('detected', found);
    document.getElementById('security_code-hint').textContent = msg(brand && brand[0] === 'AMEX' ? 'card.csc_hint_amex' : 'card.csc_hint');
  }
  function show(name, message) {
    var el = document.getElementById(name + '-error');
    var input = document.getElementById(name);
    if (el) el.textContent = message;
    input.parentNode.classList.toggle('invalid', Boolean(message));
    input.setAttribute('aria-invalid', message ? 'true' : 'false');
  }
  function showSummary(errors) {
    var list = document.getElementById('error-summary-list');
    while (list.firstChild) list.removeChild(list.firstChild);
    FIELDS.forEach(function (name) {
      if (!errors[name]) return;
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = '#' + name;
      link.textContent = errors[name];
      item.appendChild(link);
      list.appendChild(item);
    });
    summary.hidden = list.children.length === 0;
  }
  // the errors on screen, by field: each is judged again as its field changes, so neither a field nor the
  // summary goes on naming a problem the shopper has fixed
  var marked = {};
  function setError(name, message) {
    show(name, message);
    if (message) marked[name] = message;
    else delete marked[name];
  }
  // leaving a field that holds something judges it; a field already marked is judged again at each change, as
  // are the other marked ones (month and year judge each other, the number's brand the security code)
  function refresh(name, leaving) {
    var errors = check();
    var value = document.getElementById(name).value.trim();
    if (marked[name] || (leaving && value)) setError(name, errors[name] || '');
    Object.keys(marked).forEach(function (other) {
      if (other !== name) setError(other, errors[other] || '');
    });
    if (!summary.hidden) showSummary(marked);
  }
  function check() {
    var errors = {};
    var pan = digits(number.value);
    var brand = brandOf(pan);
    if (!document.getElementById('cardholder').value.trim()) errors.cardholder = msg('error.cardholder');
    if (!/^\d{12,19}$/.test(pan)) errors.card = msg('error.card_digits');
    else if (!luhn(pan)) errors.card = msg('error.card_invalid');
    else if (accepted.length > 0 && (!brand || accepted.indexOf(brand[0]) < 0))
      errors.card = msg('error.card_brand', { brand: brand ? brand[1] : '?', brands: acceptedNames() });
    var month = document.getElementById('expiration_month').value.trim();
    var year = document.getElementById('expiration_year').value.trim();
    if (!/^(0?[1-9]|1[0-2])$/.test(month)) errors.expiration_month = msg('error.month');
    if (!/^(\d{2}|\d{4})$/.test(year)) errors.expiration_year = msg('error.year');
    if (!errors.expiration_month && !errors.expiration_year) {
      var y = year.length === 2 ? 2000 + Number(year) : Number(year);
      var now = new Date();
      if (y < now.getFullYear() || (y === now.getFullYear() && Number(month) < now.getMonth() + 1))
        errors.expiration_year = msg('error.expired');
    }
    var csc = document.getElementById('security_code').value;
    if (!new RegExp('^\\d{' + cscLength(brand) + '}$').test(csc)) errors.security_code = msg('error.csc', { digits: cscLength(brand) });
    return errors;
  }
  // EMV 3-D Secure 2 browser data, sent with the card for the issuer's risk check
  function fillBrowserData() {
    var set = function (id, value) {
      var el = document.getElementById(id);
      if (el) el.value = String(value);
    };
    set('browser_screen_width', window.screen.width);
    set('browser_screen_height', window.screen.height);
    set('browser_color_depth', window.screen.colorDepth);
    set('browser_tz_offset', new Date().getTimezoneOffset());
    set('browser_language', navigator.language || '');
    set('browser_java_enabled', typeof navigator.javaEnabled === 'function' && navigator.javaEnabled() ? 'true' : 'false');
    set('browser_javascript_enabled', 'true');
  }
  // the session's end in the shopper's own time zone (the server wrote it in UTC)
  var until = document.getElementById('open-until');
  var expires = until && Number(until.getAttribute('data-expires'));
  if (expires) {
    try {
      var time = new Intl.DateTimeFormat(lang, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(expires);
      until.textContent = msg('card.open_until', { time: time });
    } catch (e) {
      // keep the server's text
    }
  }
  // digit groups by brand: American Express 4-6-5, Diners Club 4-6-4 (14 digits), the others by fours
  function groupSizes(pan) {
    var brand = brandOf(pan);
    if (brand && brand[0] === 'AMEX') return [4, 6, 5];
    if (brand && brand[0] === 'DINERS' && pan.length <= 14) return [4, 6, 4];
    return [4, 4, 4, 4, 3];
  }
  function grouped(pan) {
    var sizes = groupSizes(pan);
    var parts = [];
    var at = 0;
    for (var g = 0; g < sizes.length && at < pan.length; g++) {
      parts.push(pan.slice(at, at + sizes[g]));
      at += sizes[g];
    }
    if (at < pan.length) parts.push(pan.slice(at));
    return parts.join(' ');
  }
  // the position in `text` just after its `count`-th digit (0: the start)
  function afterDigits(text, count) {
    if (count <= 0) return 0;
    for (var i = 0, seen = 0; i < text.length; i++) {
      if (/\d/.test(text.charAt(i)) && ++seen === count) return i + 1;
    }
    return text.length;
  }
  var shown = number.value;
  // regroups the number after each change: typing, deleting (a group's space deletes the digit beyond it),
  // pasting in the middle; the caret stays after the same digit it was after
  function regroup(event) {
    var value = number.value;
    var caret = number.selectionStart === null ? value.length : number.selectionStart;
    var before = value.slice(0, caret).replace(/\D/g, '').length;
    var pan = value.replace(/\D/g, '');
    if (pan === shown.replace(/\D/g, '') && value.length < shown.length) {
      // only a space went: take the digit it separated, as a shopper pressing delete there means
      if (event && event.inputType === 'deleteContentBackward' && before > 0) {
        pan = pan.slice(0, before - 1) + pan.slice(before);
        before -= 1;
      } else if (event && event.inputType === 'deleteContentForward') {
        pan = pan.slice(0, before) + pan.slice(before + 1);
      }
    }
    pan = pan.slice(0, 19);
    var text = /^[\d\s]*$/.test(value) || pan.length > 0 ? grouped(pan) : value;
    shown = text;
    if (text === value) return;
    number.value = text;
    if (document.activeElement === number) {
      var at = afterDigits(text, Math.min(before, pan.length));
      number.setSelectionRange(at, at);
    }
  }
  number.addEventListener('input', function (event) {
    regroup(event);
    showBrand();
  });
  FIELDS.forEach(function (name) {
    var input = document.getElementById(name);
    input.addEventListener('blur', function () {
      refresh(name, true);
    });
    input.addEventListener('input', function () {
      if (marked[name]) refresh(name, false);
    });
  });
  // the errors a page was answered with count as shown
  FIELDS.forEach(function (name) {
    var el = document.getElementById(name + '-error');
    if (document.getElementById(name).getAttribute('aria-invalid') === 'true' && el && el.textContent) marked[name] = el.textContent;
  });
  form.setAttribute('novalidate', '');
  form.addEventListener('submit', function (event) {
    var errors = check();
    FIELDS.forEach(function (name) {
      setError(name, errors[name] || '');
    });
    showSummary(errors);
    if (!summary.hidden) {
      event.preventDefault();
      summary.focus();
      return;
    }
    fillBrowserData();
    var origin = document.body.getAttribute('data-parent-origin');
    if (window.parent !== window && origin) window.parent.postMessage({ type: 'gateway:submitted' }, origin);
    var button = document.getElementById('pay-button');
    // a second click must not send a second request (the server would answer the first payment anyway)
    setTimeout(function () {
      button.disabled = true;
    }, 0);
  });
  // links of the summary move to their field
  summary.addEventListener('click', function (event) {
    var target = event.target;
    if (!target || target.tagName !== 'A') return;
    var field = document.getElementById(target.getAttribute('href').slice(1));
    if (field) {
      event.preventDefault();
      field.focus();
    }
  });
  if (number.value) {
    regroup();
    showBrand();
  }
  // a page answered with problems: the summary takes the focus so a screen reader reads it first
  if (!summary.hidden) summary.focus();
})();
