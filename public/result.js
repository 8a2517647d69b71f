// The result page: inside an iFrame, posts the signed result to the parent window (registered origin only);
// at the top level, sends the shopper on to the merchant's return address after a pause long enough to read it. A decline the
// session can still answer with another card (data-final="false") waits for the shopper: "Try another card"
// goes back to the card page, and "Continue" hands this result on (a frame's parent by message), so the
// merchant's page gets one final result.
(function () {
  var main = document.getElementById('result');
  if (!main) return;
  var origin = document.body.getAttribute('data-parent-origin');
  var redirect = main.getAttribute('data-redirect');
  var final = main.getAttribute('data-final') !== 'false';
  var result = JSON.parse(main.getAttribute('data-result') || '{}');
  var framed = window.parent !== window;
  // the outcome is what the shopper came for: a screen reader reads it first, a keyboard starts from it
  var heading = document.getElementById('result-heading');
  if (heading) heading.focus();
  function postResult() {
    var message = { type: 'gateway:result' };
    for (var k in result) message[k] = result[k];
    window.parent.postMessage(message, origin);
  }
  if (framed) {
    var note = document.getElementById('redirect-note');
    if (note) note.hidden = true;
    if (!origin) return;
    if (final) return postResult();
    var proceed = document.getElementById('continue');
    if (proceed)
      proceed.addEventListener('click', function (event) {
        event.preventDefault();
        postResult();
      });
    return;
  }
  if (redirect && final) {
    // long enough to read the outcome; "Continue" goes at once
    setTimeout(function () {
      window.location.assign(redirect);
    }, 5000);
  }
})();
