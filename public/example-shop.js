// The development example shop's iFrame mode: mounts the checkout, shows the result it posts back, then
// takes the shopper to the shop's return page with that result, where the shop's server verifies it (a
// merchant never trusts a result it has not checked on its server).
(function () {
  var shop = document.getElementById('example-shop');
  var url = shop && shop.getAttribute('data-checkout-url');
  if (!url) return;
  var returnUrl = shop.getAttribute('data-return-url');
  window.GatewayCheckout.mount(document.getElementById('checkout-frame'), {
    url: url,
    onResult: function (result) {
      document.getElementById('frame-result').textContent = JSON.stringify(result, null, 2);
      if (returnUrl) window.location.assign(returnUrl + '?' + new URLSearchParams(result).toString());
    },
  });
})();
