// Inside an iFrame, tells the merchant's page (its registered origin only) how tall this page is,
// so public/embed.js can size the frame to its content.
(function () {
  var origin = document.body.getAttribute('data-parent-origin');
  if (window.parent === window || !origin) return;
  var last = 0;
  function report() {
    var height = Math.ceil(document.documentElement.scrollHeight);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'gateway:resize', height: height }, origin);
  }
  report();
  window.addEventListener('load', report);
  if (typeof ResizeObserver === 'function') new ResizeObserver(report).observe(document.body);
})();
