// The development example shop's iFrame mode: mounts the checkout and shows the result it posts back.
(function () {
  var shop = document.getElementById('example-shop');
  var url = shop && shop.getAttribute('data-checkout-url');
  if (!url) return;
  window.GatewayCheckout.mount(document.getElementById('checkout-frame'), {
    url: url,
    onResult: function (result) {
      document.getElementById('frame-result').textContent = JSON.stringify(result, null, 2);
    },
  });
})();
