// Mounts the hosted checkout in an iFrame on the merchant's page (docs/checkout.md shows it in full).
//   var checkout = GatewayCheckout.mount(document.getElementById('pay'), {
//     url: checkoutUrl,                        // checkout_url from POST /v1/checkout (Accept: application/json)
//     onReady: function (info) { ... },        // a hosted page is shown ({page: 'card' | 'result' | 'other'})
//     onSubmitted: function () { ... },        // the shopper sent the card form
//     onResult: function (result) { ... },     // the signed result: verify encryption_data on your server
//   });
// The same three events are also dispatched on the container as DOM events `gateway:ready`,
// `gateway:submitted` and `gateway:result` (the data in event.detail). The frame's height follows its
// content. Messages are accepted only from the gateway's origin and from this frame.
(function () {
  function mount(container, options) {
    var url = new URL(options.url, window.location.href);
    var frame = document.createElement('iframe');
    frame.src = url.toString();
    frame.title = options.title || 'Secure checkout';
    frame.setAttribute('allow', 'payment');
    frame.style.width = '100%';
    frame.style.border = '0';
    frame.style.display = 'block';
    frame.style.height = (options.minHeight || 480) + 'px';
    frame.style.colorScheme = 'normal';
    function raise(name, detail, callback) {
      if (typeof callback === 'function') callback(detail);
      container.dispatchEvent(new CustomEvent('gateway:' + name, { detail: detail }));
    }
    function onMessage(event) {
      if (event.origin !== url.origin || event.source !== frame.contentWindow) return;
      var data = event.data || {};
      if (data.type === 'gateway:resize' && typeof data.height === 'number' && data.height > 0) {
        frame.style.height = Math.max(Math.ceil(data.height), 120) + 'px';
      } else if (data.type === 'gateway:ready') {
        raise('ready', { page: String(data.page || '') }, options.onReady);
      } else if (data.type === 'gateway:submitted') {
        raise('submitted', {}, options.onSubmitted);
      } else if (data.type === 'gateway:result') {
        var result = {};
        for (var k in data) if (k !== 'type') result[k] = data[k];
        raise('result', result, options.onResult);
      }
    }
    window.addEventListener('message', onMessage);
    container.appendChild(frame);
    return {
      frame: frame,
      unmount: function () {
        window.removeEventListener('message', onMessage);
        frame.remove();
      },
    };
  }
  window.GatewayCheckout = { mount: mount };
})();
