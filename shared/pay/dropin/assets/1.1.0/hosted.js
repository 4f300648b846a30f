/*! paygate hosted payment page 1.1.0: the page at a payment link's url runs the same Drop-in as a
 * merchant's page, on the link's session (its calls go to /pay/<link>/..., which need no key). */
(function () {
  'use strict';
  var root = document.getElementById('pg-hosted');
  if (!root || !window.PaygateCheckout) return;
  var cfg = JSON.parse(root.getAttribute('data-config'));
  if (cfg.status !== 'active') return; // the server drew the link's state
  var mount = document.getElementById('dropin');
  var cancel = document.getElementById('pg-cancel');
  var t = PaygateCheckout.translator(PaygateCheckout.locale(cfg.locale));
  var base = location.origin + '/pay/' + encodeURIComponent(cfg.link);
  var restarts = 0;

  // An answer from a redirect (3-D Secure 1, bank pages) comes back to this
  // page: take it, and drop it from the address bar.
  var params = new URLSearchParams(location.search);
  var redirectResult = params.get('redirectResult');
  if (redirectResult) history.replaceState(null, '', location.pathname);

  var LINK_STATES = { payment_link_paid: 'paid', payment_link_cancelled: 'linkCancelled', payment_link_expired: 'expired' };
  var SESSION_ENDED = ['session_expired', 'session_completed', 'session_refused', 'session_canceled', 'payment_link_session_replaced', 'payment_link_session'];

  function link(url, key) {
    if (!url) return null;
    var a = document.createElement('a');
    a.className = 'pg-result__link';
    a.href = url;
    a.textContent = t(key, { merchant: cfg.merchant });
    return a;
  }

  // showState replaces the Drop-in with the link's state (paid elsewhere,
  // cancelled, expired).
  function showState(kind) {
    if (cancel) cancel.remove();
    var box = PaygateCheckout.renderResult(mount, kind, t);
    var a = link(kind === 'paid' ? cfg.successUrl : cfg.failureUrl, 'backTo');
    if (a) box.appendChild(a);
  }

  function fetchSession() {
    return fetch(base + '/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}', credentials: 'omit', cache: 'no-store' })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (!res.ok) throw body.error || { code: 'http_' + res.status };
          return body;
        });
      });
  }

  function start(details) {
    return fetchSession().then(function (session) {
      return PaygateCheckout({
        environment: location.origin, endpoint: base, session: { id: session.id, sessionData: session.sessionData },
        locale: cfg.locale,
        onPaymentCompleted: function (result, component) {
          if (cancel) cancel.remove();
          var box = component.root.querySelector('.pg-result');
          if (cfg.successUrl && box && result.resultCode === 'Authorised') {
            box.appendChild(link(cfg.successUrl, 'backTo'));
            var note = document.createElement('p');
            note.className = 'pg-result__text';
            note.textContent = t('redirecting', { merchant: cfg.merchant });
            box.appendChild(note);
            setTimeout(function () { location.assign(cfg.successUrl); }, 3000);
          }
        },
        onPaymentFailed: function (result, component) {
          var box = component.root.querySelector('.pg-result');
          var a = link(cfg.failureUrl, 'backTo');
          if (box && a) box.appendChild(a);
          // A payment ended by the link's own change (paid in another tab,
          // cancelled, expired) says so once the link is read again.
          if (result.resultCode === 'Cancelled') refresh();
        },
        onRetry: function () { restarts = 0; start(); },
        onError: function (err) { handleError(err); }
      }).then(function (checkout) {
        mount.textContent = '';
        checkout.create('dropin').mount(mount);
        if (details) checkout.submitDetails(details);
      });
    }).catch(handleError);
  }

  // refresh reads the link's state again through its session.
  function refresh() {
    fetchSession().then(null, handleError);
  }

  function handleError(err) {
    var code = err && err.code;
    if (LINK_STATES[code]) return showState(LINK_STATES[code]);
    if (SESSION_ENDED.indexOf(code) >= 0 && restarts < 2) {
      restarts += 1;
      return start();
    }
    if (!mount.querySelector('.pg-methods')) PaygateCheckout.renderResult(mount, 'error', t, { retry: function () { restarts = 0; start(); } });
  }

  mount.textContent = t('loading');
  start(redirectResult ? { details: { redirectResult: redirectResult } } : null);
})();
