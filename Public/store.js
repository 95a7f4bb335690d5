// PortOne (iamport) checkout: opens the PG window through iamport's SDK with our merchant id and
// amount, then goes to /store/complete, where the server asks PortOne what really happened.
'use strict';

(function () {
  const checkout = document.getElementById('portone-checkout');
  const button = document.getElementById('portone-pay');
  if (!checkout || !button) return;
  const data = checkout.dataset;
  function pay() {
    if (!window.IMP) return;
    window.IMP.init(data.merchantCode);
    window.IMP.request_pay({
      pg: data.pg,
      pay_method: 'card',
      merchant_uid: data.merchantUid,
      name: data.name,
      amount: Number(data.amount),
      buyer_email: data.buyerEmail,
      m_redirect_url: new URL(data.completeUrl, location.origin).href,
    }, (response) => {
      const target = new URL(data.completeUrl, location.origin);
      target.searchParams.set('merchant_uid', data.merchantUid);
      if (response.imp_uid) target.searchParams.set('imp_uid', response.imp_uid);
      if (!response.success && response.error_msg) target.searchParams.set('error_msg', response.error_msg);
      location.assign(target.href);
    });
  }
  button.addEventListener('click', pay);
})();
