// Mounts the hosted checkout in an iFrame on the merchant's page.
//   GatewayCheckout.mount(document.getElementById('pay'), {
//     url: checkoutUrl,                       // checkout_url from POST /v1/checkout (Accept: application/json)
//     onResult: function (result) { ... },    // the signed result: verify encryption_data on your server
//   });
// The frame's height follows its content. Messages are accepted only from the gateway's origin.
(function () {
  function mount(container, options) {
    var url = new URL(options.url, window.location.href);
    var frame = document.createElement('iframe');
    frame.src = url.toString();
    frame.title = options.title || 'Secure checkout';
    frame.setAttribute('allow', 'payment');
    frame.style.width = '100%';
    frame.style.border = '0';
    frame.style.height = (options.minHeight || 480) + 'px';
    frame.style.colorScheme = 'normal';
    function onMessage(event) {
      if (event.origin !== url.origin || event.source !== frame.contentWindow) return;
      var data = event.data || {};
      if (data.type === 'gateway:resize' && typeof data.height === 'number') {
        frame.style.height = Math.max(data.height, 120) + 'px';
      } else if (data.type === 'gateway:result' && typeof options.onResult === 'function') {
        var result = {};
        for (var k in data) if (k !== 'type') result[k] = data[k];
        options.onResult(result);
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
