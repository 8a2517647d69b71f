// A notice with no known shop to link to ("Checkout not found" reached without one): the button takes the
// shopper back to the page before, the shop in most cases; with nothing to go back to it stays hidden.
(function () {
  var back = document.getElementById('notice-back');
  if (!back || back.tagName !== 'BUTTON' || window.history.length < 2) return;
  back.hidden = false;
  back.addEventListener('click', function () {
    window.history.back();
  });
})();
