// The result page: inside an iFrame, posts the signed result to the parent window (registered origin only);
// at the top level, sends the shopper on to the merchant's return address after a short pause.
(function () {
  var main = document.getElementById('result');
  if (!main) return;
  var origin = document.body.getAttribute('data-parent-origin');
  var redirect = main.getAttribute('data-redirect');
  var result = JSON.parse(main.getAttribute('data-result') || '{}');
  if (window.parent !== window) {
    if (origin) {
      var message = { type: 'gateway:result' };
      for (var k in result) message[k] = result[k];
      window.parent.postMessage(message, origin);
    }
    var note = document.getElementById('redirect-note');
    if (note) note.hidden = true;
    return;
  }
  if (redirect) {
    setTimeout(function () {
      window.location.assign(redirect);
    }, 1500);
  }
})();
