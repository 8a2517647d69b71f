// Inside an iFrame, tells the merchant's page (its registered origin only) that the page is ready and how
// tall it is, so public/embed.js can size the frame to its content and raise its `ready` event.
(function () {
  var origin = document.body.getAttribute('data-parent-origin');
  if (window.parent === window || !origin) return;
  // framed, the page is as tall as its content (no full-viewport minimum), so the frame can also shrink
  document.documentElement.classList.add('framed');
  var last = 0;
  function report() {
    // the body's own height: the document's scrollHeight is never less than the frame's, so a page shorter
    // than the one before (the result after the card form) could not shrink the frame
    var height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'gateway:resize', height: height }, origin);
  }
  report();
  var page = document.getElementById('card-form') ? 'card' : document.getElementById('result') ? 'result' : 'other';
  window.parent.postMessage({ type: 'gateway:ready', page: page }, origin);
  window.addEventListener('load', report);
  if (typeof ResizeObserver === 'function') new ResizeObserver(report).observe(document.body);
})();
