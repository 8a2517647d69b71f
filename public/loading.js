// Submits the loading page's hidden form as soon as the page is ready (no inline script: CSP).
(function () {
  var form = document.getElementById('checkout-form');
  if (form) form.submit();
})();
