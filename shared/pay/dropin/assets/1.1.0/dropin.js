/*! paygate web Drop-in 1.1.0. Plain JavaScript, no dependencies, no network call but to the service.
 *
 * The API mirrors Adyen Web's:
 *
 *   const checkout = await PaygateCheckout({
 *     clientKey: 'ck_test_...',                      // allowed from this page's origin
 *     session: { id, sessionData },                  // from POST /v2/sessions, made by your server
 *     locale: 'ru-RU',                               // else the browser's; en, ru and kk are built in
 *     onPaymentCompleted(result, component) {},      // resultCode Authorised (confirm on your server)
 *     onPaymentFailed(result, component) {},         // Refused, Cancelled, Error
 *     onError(error, component) {},
 *   });
 *   checkout.create('dropin').mount('#dropin');
 *
 * The advanced flow passes paymentMethodsResponse and amount instead of a session, and handles
 * onSubmit(state, component) and onAdditionalDetails(state, component) by calling /v2/payments and
 * /v2/payments/details from its server, then component.handleResponse(response).
 *
 * The client events of the spec (Finished, Action, Update, Error) reach config.onEvent(event) and are
 * dispatched on the mounted element as a 'paygate:event' CustomEvent whose detail is the event.
 *
 * Card data goes only into the body of the payment request: never into a URL, storage or the console.
 * Since 1.1.0 it is encrypted in the browser first (WebCrypto, no library): the number (with the
 * holder's name), expiry month, expiry year and security code each become a compact JWE (RSA-OAEP-256,
 * A256CBC-HS512, Adyen's client-side-encryption format) to the platform's public card key, which the
 * session's setup carries (clientEncryptionKey); the advanced flow passes it as
 * config.clientEncryptionKey (a key of GET /v1/payments/direct/keys: {kid, jwk}, or its adyen_key
 * string). Without a key the fields are sent as the sandbox's test_ data, which only test keys take.
 */
(function () {
  'use strict';

  var VERSION = '1.1.0';
  var script = document.currentScript;
  var scriptOrigin = script && script.src ? new URL(script.src).origin : location.origin;

  var MESSAGES = {
    en: {
      card: 'Card', applepay: 'Apple Pay', googlepay: 'Google Pay',
      cardNumber: 'Card number', expiryDate: 'Expiry date', expiryHint: 'MM/YY', cvc: 'Security code',
      cvcHint3: '3 digits on the back', cvcHint4: '4 digits on the front', holderName: 'Name on card',
      pay: 'Pay {amount}', payWith: 'Pay with {method} (sandbox)', processing: 'Processing…', loading: 'Loading…',
      errNumber: 'Enter a valid card number', errNumberIncomplete: 'The card number is incomplete',
      errExpiry: 'Enter a valid expiry date (MM/YY)', errExpired: 'This card has expired', errCvc: 'Enter a valid security code',
      successTitle: 'Payment successful', successText: 'Thank you. Your payment was authorised.',
      refusedTitle: 'Payment refused', refusedText: 'Your payment was refused. Try again, perhaps with another card.',
      cancelledTitle: 'Payment cancelled', cancelledText: 'The payment was not completed.',
      errorTitle: 'Something went wrong', errorText: 'The payment could not be completed.',
      pendingTitle: 'Payment pending', pendingText: 'We are waiting for the result of your payment.',
      retry: 'Try again', challengeTitle: 'Confirm the payment with your bank', challengeFrame: '3-D Secure challenge',
      networkError: 'The service could not be reached. Check your connection and try again.',
      sessionEnded: 'This payment session has ended.',
      paidTitle: 'Already paid', paidText: 'This payment link has already been paid.',
      linkCancelledTitle: 'Link cancelled', linkCancelledText: 'The merchant cancelled this payment link.',
      expiredTitle: 'Link expired', expiredText: 'This payment link has expired.',
      backTo: 'Return to {merchant}', redirecting: 'Returning you to {merchant}…', cancel: 'Cancel and return to {merchant}',
      reason: 'Reason: {reason}'
    },
    ru: {
      card: 'Карта', applepay: 'Apple Pay', googlepay: 'Google Pay',
      cardNumber: 'Номер карты', expiryDate: 'Срок действия', expiryHint: 'ММ/ГГ', cvc: 'Код безопасности',
      cvcHint3: '3 цифры на обороте', cvcHint4: '4 цифры на лицевой стороне', holderName: 'Имя на карте',
      pay: 'Оплатить {amount}', payWith: 'Оплатить через {method} (песочница)', processing: 'Обработка…', loading: 'Загрузка…',
      errNumber: 'Введите правильный номер карты', errNumberIncomplete: 'Номер карты введён не полностью',
      errExpiry: 'Введите правильный срок действия (ММ/ГГ)', errExpired: 'Срок действия карты истёк', errCvc: 'Введите правильный код безопасности',
      successTitle: 'Оплата прошла', successText: 'Спасибо. Платёж авторизован.',
      refusedTitle: 'Платёж отклонён', refusedText: 'Платёж отклонён. Попробуйте ещё раз, например другой картой.',
      cancelledTitle: 'Платёж отменён', cancelledText: 'Платёж не был завершён.',
      errorTitle: 'Что-то пошло не так', errorText: 'Не удалось завершить платёж.',
      pendingTitle: 'Платёж обрабатывается', pendingText: 'Ожидаем результат вашего платежа.',
      retry: 'Попробовать ещё раз', challengeTitle: 'Подтвердите платёж в своём банке', challengeFrame: 'Проверка 3-D Secure',
      networkError: 'Не удалось связаться с сервисом. Проверьте подключение и попробуйте ещё раз.',
      sessionEnded: 'Эта платёжная сессия завершена.',
      paidTitle: 'Уже оплачено', paidText: 'Эта платёжная ссылка уже оплачена.',
      linkCancelledTitle: 'Ссылка отменена', linkCancelledText: 'Продавец отменил эту платёжную ссылку.',
      expiredTitle: 'Срок действия ссылки истёк', expiredText: 'Срок действия этой платёжной ссылки истёк.',
      backTo: 'Вернуться в {merchant}', redirecting: 'Возвращаем вас в {merchant}…', cancel: 'Отменить и вернуться в {merchant}',
      reason: 'Причина: {reason}'
    },
    kk: {
      card: 'Карта', applepay: 'Apple Pay', googlepay: 'Google Pay',
      cardNumber: 'Карта нөмірі', expiryDate: 'Жарамдылық мерзімі', expiryHint: 'АА/ЖЖ', cvc: 'Қауіпсіздік коды',
      cvcHint3: 'Артқы жағындағы 3 сан', cvcHint4: 'Алдыңғы жағындағы 4 сан', holderName: 'Картадағы аты-жөні',
      pay: '{amount} төлеу', payWith: '{method} арқылы төлеу (құмсалғыш)', processing: 'Өңделуде…', loading: 'Жүктелуде…',
      errNumber: 'Дұрыс карта нөмірін енгізіңіз', errNumberIncomplete: 'Карта нөмірі толық емес',
      errExpiry: 'Дұрыс жарамдылық мерзімін енгізіңіз (АА/ЖЖ)', errExpired: 'Картаның мерзімі өтіп кеткен', errCvc: 'Дұрыс қауіпсіздік кодын енгізіңіз',
      successTitle: 'Төлем сәтті өтті', successText: 'Рақмет. Төлем авторизацияланды.',
      refusedTitle: 'Төлем қабылданбады', refusedText: 'Төлем қабылданбады. Қайталап көріңіз, мысалы басқа картамен.',
      cancelledTitle: 'Төлем тоқтатылды', cancelledText: 'Төлем аяқталмады.',
      errorTitle: 'Бірдеңе дұрыс болмады', errorText: 'Төлемді аяқтау мүмкін болмады.',
      pendingTitle: 'Төлем өңделуде', pendingText: 'Төлеміңіздің нәтижесін күтудеміз.',
      retry: 'Қайталап көру', challengeTitle: 'Төлемді банкіңізде растаңыз', challengeFrame: '3-D Secure тексеруі',
      networkError: 'Қызметке қосылу мүмкін болмады. Байланысты тексеріп, қайталап көріңіз.',
      sessionEnded: 'Бұл төлем сессиясы аяқталды.',
      paidTitle: 'Төленген', paidText: 'Бұл төлем сілтемесі бойынша төлем жасалып қойған.',
      linkCancelledTitle: 'Сілтеме жойылды', linkCancelledText: 'Сатушы бұл төлем сілтемесін жойды.',
      expiredTitle: 'Сілтеменің мерзімі өтті', expiredText: 'Бұл төлем сілтемесінің мерзімі өтіп кетті.',
      backTo: '{merchant} сайтына оралу', redirecting: '{merchant} сайтына қайтарып жатырмыз…', cancel: 'Бас тартып, {merchant} сайтына оралу',
      reason: 'Себебі: {reason}'
    }
  };

  // pickLocale is the first of the asked locale and the browser's that the Drop-in speaks.
  function pickLocale(asked) {
    var wanted = [asked].concat(navigator.languages || [navigator.language]);
    for (var i = 0; i < wanted.length; i++) {
      var lang = String(wanted[i] || '').toLowerCase().split(/[-_]/)[0];
      if (MESSAGES[lang]) return lang;
    }
    return 'en';
  }

  function translator(lang) {
    var m = MESSAGES[lang] || MESSAGES.en;
    return function (key, vars) {
      var s = m[key] || MESSAGES.en[key] || key;
      return s.replace(/\{(\w+)\}/g, function (_, k) { return vars && vars[k] != null ? String(vars[k]) : ''; });
    };
  }

  // el builds an element; text is always set as text, never as HTML.
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'className') e.className = v;
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }

  var uid = 0;
  function nextID(name) { uid += 1; return 'pg-' + name + '-' + uid; }

  // Card rules: brand by prefix, lengths, CVC size.
  var BRANDS = [
    { brand: 'amex', label: 'American Express', re: /^3[47]/, lengths: [15], cvc: 4, groups: [4, 6, 5] },
    { brand: 'visa', label: 'Visa', re: /^4/, lengths: [13, 16, 19], cvc: 3, groups: [4, 4, 4, 4, 3] },
    { brand: 'mc', label: 'Mastercard', re: /^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/, lengths: [16], cvc: 3, groups: [4, 4, 4, 4] }
  ];
  var GENERIC = { brand: '', label: '', lengths: [12, 13, 14, 15, 16, 17, 18, 19], cvc: 3, groups: [4, 4, 4, 4, 3] };

  function brandOf(digits) {
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i].re.test(digits)) return BRANDS[i];
    return GENERIC;
  }

  function luhn(digits) {
    var sum = 0, dbl = false;
    for (var i = digits.length - 1; i >= 0; i--) {
      var d = digits.charCodeAt(i) - 48;
      if (dbl) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
      dbl = !dbl;
    }
    return digits.length > 0 && sum % 10 === 0;
  }

  function groupDigits(digits, groups) {
    var out = [], i = 0;
    for (var g = 0; g < groups.length && i < digits.length; g++) { out.push(digits.slice(i, i + groups[g])); i += groups[g]; }
    if (i < digits.length) out.push(digits.slice(i));
    return out.join(' ');
  }

  // formatAmount renders minor units without floating point: the decimal
  // string goes to Intl, which formats strings exactly.
  function formatAmount(amount, lang) {
    if (!amount) return '';
    try {
      var nf = new Intl.NumberFormat(lang, { style: 'currency', currency: amount.currency });
      var exp = nf.resolvedOptions().maximumFractionDigits;
      var s = String(Math.abs(amount.value));
      while (s.length <= exp) s = '0' + s;
      var dec = exp > 0 ? s.slice(0, s.length - exp) + '.' + s.slice(s.length - exp) : s;
      return nf.format(dec);
    } catch (e) {
      return amount.value + ' ' + amount.currency;
    }
  }

  function b64json(obj) { return btoa(JSON.stringify(obj)); }

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
  }

  // Client-side encryption (RFC 7516 compact JWE, RFC 7518 RSA-OAEP-256 and
  // A256CBC-HS512), as Adyen's libraries write it: WebCrypto wraps a random
  // 512-bit content key with the RSA key; AES-256-CBC under its second half
  // encrypts the payload; HMAC-SHA-512 under its first half over
  // AAD || IV || ciphertext || AL (the AAD's length in bits, 64-bit big
  // endian) gives the tag, its first 32 bytes.
  function utf8(s) { return new TextEncoder().encode(s); }

  function b64url(bytes) {
    var s = '';
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function hexBytes(hex) {
    if (hex.length % 2) hex = '0' + hex;
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function concat(parts) {
    var n = 0, off = 0;
    parts.forEach(function (p) { n += p.length; });
    var out = new Uint8Array(n);
    parts.forEach(function (p) { out.set(p, off); off += p.length; });
    return out;
  }

  // publicJWK reads a key as the setup gives it ({kid, jwk}) or as Adyen's
  // "Exponent|Modulus" hex string (GET /v1/payments/direct/keys' adyen_key).
  function publicJWK(key) {
    if (typeof key === 'string') {
      var parts = key.split('|');
      return { kid: '', jwk: { kty: 'RSA', e: b64url(hexBytes(parts[0])), n: b64url(hexBytes(parts[1] || '')) } };
    }
    return { kid: key.kid || (key.jwk && key.jwk.kid) || '', jwk: key.jwk || key };
  }

  function importKey(jwk) {
    return crypto.subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RSA-OAEP-256', ext: true },
      { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  }

  // sealJWE encrypts payload (an object) to the imported key pub.
  function sealJWE(pub, kid, payload) {
    var header = { alg: 'RSA-OAEP-256', enc: 'A256CBC-HS512', version: '1' };
    if (kid) header.kid = kid;
    var protectedHeader = b64url(utf8(JSON.stringify(header)));
    var aad = utf8(protectedHeader);
    var cek = crypto.getRandomValues(new Uint8Array(64));
    var iv = crypto.getRandomValues(new Uint8Array(16));
    var plain = utf8(JSON.stringify(payload));
    var subtle = crypto.subtle;
    return Promise.all([
      subtle.encrypt({ name: 'RSA-OAEP' }, pub, cek),
      subtle.importKey('raw', cek.slice(32), { name: 'AES-CBC' }, false, ['encrypt']),
      subtle.importKey('raw', cek.slice(0, 32), { name: 'HMAC', hash: 'SHA-512' }, false, ['sign'])
    ]).then(function (r) {
      cek.fill(0);
      return subtle.encrypt({ name: 'AES-CBC', iv: iv }, r[1], plain).then(function (ct) {
        plain.fill(0);
        ct = new Uint8Array(ct);
        var al = new Uint8Array(8), bits = aad.length * 8;
        new DataView(al.buffer).setUint32(0, Math.floor(bits / 4294967296));
        new DataView(al.buffer).setUint32(4, bits >>> 0);
        return subtle.sign('HMAC', r[2], concat([aad, iv, ct, al])).then(function (mac) {
          var tag = new Uint8Array(mac).slice(0, 32);
          return [protectedHeader, b64url(new Uint8Array(r[0])), b64url(iv), b64url(ct), b64url(tag)].join('.');
        });
      });
    });
  }

  // encryptCard turns the typed card into Adyen's encrypted fields: one JWE
  // per field, each with the same generationtime; the holder's name rides
  // in the number's. Without a key: the sandbox's test_ fields.
  function encryptCard(key, card) {
    if (!key) {
      var plain = {
        encryptedCardNumber: 'test_' + card.number, encryptedExpiryMonth: 'test_' + card.expiryMonth,
        encryptedExpiryYear: 'test_' + card.expiryYear, encryptedSecurityCode: 'test_' + card.cvc
      };
      if (card.holderName) plain.holderName = card.holderName;
      return Promise.resolve(plain);
    }
    if (!window.crypto || !crypto.subtle) return Promise.reject(new Error('WebCrypto is not available (a secure context is needed)'));
    var k = publicJWK(key);
    var gen = new Date().toISOString();
    var number = { number: card.number, generationtime: gen };
    if (card.holderName) number.holderName = card.holderName;
    return importKey(k.jwk).then(function (pub) {
      return Promise.all([
        sealJWE(pub, k.kid, number),
        sealJWE(pub, k.kid, { expiryMonth: card.expiryMonth, generationtime: gen }),
        sealJWE(pub, k.kid, { expiryYear: card.expiryYear, generationtime: gen }),
        sealJWE(pub, k.kid, { cvc: card.cvc, generationtime: gen })
      ]);
    }).then(function (jwes) {
      return { encryptedCardNumber: jwes[0], encryptedExpiryMonth: jwes[1], encryptedExpiryYear: jwes[2], encryptedSecurityCode: jwes[3] };
    });
  }

  // ApiError is a failed call: its status and the service's error code.
  function ApiError(status, body) {
    var e = (body && body.error) || {};
    this.name = status ? 'API_ERROR' : 'NETWORK_ERROR';
    this.status = status;
    this.code = e.code || (status ? 'http_' + status : 'network_error');
    this.message = e.message || (status ? 'HTTP ' + status : 'network error');
    this.param = e.param;
  }
  ApiError.prototype = Object.create(Error.prototype);

  // SESSION_ENDED are the codes of a session that takes no more payments.
  var SESSION_ENDED = ['session_expired', 'session_completed', 'session_refused', 'session_canceled', 'payment_link_session_replaced'];

  function Checkout(config, setup) {
    this.config = config;
    this.lang = pickLocale(config.locale || (setup && setup.shopperLocale));
    this.t = translator(this.lang);
    this.environment = (config.environment || scriptOrigin).replace(/\/$/, '');
    this.endpoint = (config.endpoint || this.environment + '/v2/client').replace(/\/$/, '');
    this.session = config.session || null;
    this.setup = setup || null;
    this.amount = (setup && setup.amount) || config.amount || null;
    this.paymentMethods = (setup && setup.paymentMethods) || config.paymentMethodsResponse || { paymentMethods: [] };
    this.encryptionKey = (setup && setup.clientEncryptionKey) || config.clientEncryptionKey || null;
    this.components = [];
  }

  Checkout.prototype.post = function (path, body) {
    var headers = { 'Content-Type': 'application/json' };
    if (this.config.clientKey) headers.Authorization = this.config.clientKey;
    if (this.config.clientKey && /\/payments(\/details)?$/.test(path)) headers['Idempotency-Key'] = uuid();
    var url = this.endpoint + '/sessions/' + encodeURIComponent(this.session.id) + path;
    return fetch(url, { method: 'POST', headers: headers, body: JSON.stringify(body), credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' })
      .then(function (res) {
        return res.text().then(function (text) {
          var data = null;
          try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
          if (!res.ok) throw new ApiError(res.status, data);
          return data;
        });
      }, function () { throw new ApiError(0, null); });
  };

  Checkout.prototype.create = function (type, options) {
    if (type !== 'dropin' && type !== 'card') throw new Error('PaygateCheckout: unknown component ' + type);
    var c = new Dropin(this, options || {}, type === 'card');
    this.components.push(c);
    return c;
  };

  // submitDetails completes a pending action whose answer came back by
  // redirect ({details: {redirectResult}}), as Adyen's checkout.submitDetails.
  Checkout.prototype.submitDetails = function (data) {
    var c = this.components[this.components.length - 1];
    if (!c) throw new Error('PaygateCheckout: create and mount a component first');
    return c.details(data);
  };

  function Dropin(checkout, options, cardOnly) {
    this.checkout = checkout;
    this.options = options;
    this.cardOnly = cardOnly;
    this.t = checkout.t;
    this.root = null;
    this.busy = false;
    this.onMessage = null;
  }

  Dropin.prototype.mount = function (target) {
    var node = typeof target === 'string' ? document.querySelector(target) : target;
    if (!node) throw new Error('PaygateCheckout: no element ' + target);
    this.root = node;
    node.classList.add('pg-dropin');
    node.setAttribute('lang', this.checkout.lang);
    this.renderMethods();
    this.emit({ type: 'Update', paymentMethods: this.checkout.paymentMethods });
    if (this.options.onReady) this.options.onReady(this);
    return this;
  };

  Dropin.prototype.unmount = function () {
    if (this.onMessage) window.removeEventListener('message', this.onMessage);
    if (this.root) this.root.textContent = '';
    return this;
  };

  Dropin.prototype.emit = function (ev) {
    var cfg = this.checkout.config;
    if (cfg.onEvent) cfg.onEvent(ev, this);
    if (this.root) this.root.dispatchEvent(new CustomEvent('paygate:event', { detail: ev, bubbles: true }));
  };

  Dropin.prototype.methods = function () {
    var list = (this.checkout.paymentMethods.paymentMethods || []).filter(function (m) {
      return m.type === 'scheme' || m.type === 'applepay' || m.type === 'googlepay';
    });
    if (this.cardOnly) list = list.filter(function (m) { return m.type === 'scheme'; });
    if (!list.length) list = [{ type: 'scheme', brands: ['visa', 'mc'] }];
    return list;
  };

  Dropin.prototype.renderMethods = function () {
    var self = this, t = this.t;
    this.root.textContent = '';
    this.errorBox = el('p', { className: 'pg-alert', role: 'alert', hidden: true });
    var ul = el('ul', { className: 'pg-methods' });
    var methods = this.methods();
    methods.forEach(function (m) {
      var bodyID = nextID('method');
      var li = el('li', { className: 'pg-method' });
      var body = el('div', { className: 'pg-method__body', id: bodyID });
      var header = el('button', {
        type: 'button', className: 'pg-method__header', 'aria-controls': bodyID, 'aria-expanded': 'false',
        onclick: function () { self.open(li); }
      }, [el('span', { className: 'pg-method__name', text: t(m.type === 'scheme' ? 'card' : m.type) }),
        m.type === 'scheme' ? el('span', { className: 'pg-method__brands', 'aria-hidden': 'true' }, (m.brands || []).map(function (b) {
          return el('span', { className: 'pg-badge pg-badge--' + b, text: b === 'mc' ? 'MC' : b.toUpperCase() });
        })) : null]);
      body.appendChild(m.type === 'scheme' ? self.cardForm() : self.walletButton(m.type));
      li.appendChild(header);
      li.appendChild(body);
      li._body = body;
      li._header = header;
      ul.appendChild(li);
    });
    this.root.appendChild(this.errorBox);
    this.root.appendChild(ul);
    this.open(ul.firstChild, true);
  };

  Dropin.prototype.open = function (li, quiet) {
    var items = this.root.querySelectorAll('.pg-method');
    Array.prototype.forEach.call(items, function (x) {
      var on = x === li;
      x.classList.toggle('pg-method--selected', on);
      x._header.setAttribute('aria-expanded', on ? 'true' : 'false');
      x._body.hidden = !on;
    });
    if (!quiet) {
      var first = li._body.querySelector('input, button');
      if (first) first.focus();
    }
  };

  Dropin.prototype.field = function (name, label, input, hint) {
    var id = nextID(name), errID = id + '-error', hintID = hint ? id + '-hint' : null;
    input.id = id;
    input.setAttribute('aria-describedby', (hintID ? hintID + ' ' : '') + errID);
    var err = el('p', { className: 'pg-field__error', id: errID, 'aria-live': 'polite' });
    var wrap = el('div', { className: 'pg-field pg-field--' + name }, [
      el('label', { for: id, className: 'pg-field__label', text: label }),
      hint ? el('p', { className: 'pg-field__hint', id: hintID, text: hint }) : null,
      input, err
    ]);
    input._error = err;
    input._wrap = wrap;
    return wrap;
  };

  function setError(input, message) {
    input._error.textContent = message || '';
    input._wrap.classList.toggle('pg-field--invalid', !!message);
    if (message) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
  }

  Dropin.prototype.cardForm = function () {
    var self = this, t = this.t;
    var number = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'cc-number', spellcheck: 'false', maxlength: '23', required: true });
    var brandOut = el('span', { className: 'pg-brand', 'aria-live': 'polite' });
    var expiry = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'cc-exp', maxlength: '5', required: true });
    var cvc = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'cc-csc', maxlength: '4', required: true });
    var holder = el('input', { type: 'text', autocomplete: 'cc-name', maxlength: '100' });
    var pay = el('button', { type: 'submit', className: 'pg-pay', text: this.payLabel() });
    var numberField = this.field('number', t('cardNumber'), number);
    numberField.appendChild(brandOut);
    var cvcHint = t('cvcHint3');
    var cvcField = this.field('cvc', t('cvc'), cvc, cvcHint);

    var brand = GENERIC;
    number.addEventListener('input', function () {
      var digits = number.value.replace(/\D/g, '').slice(0, 19);
      brand = brandOf(digits);
      number.value = groupDigits(digits, brand.groups);
      brandOut.textContent = brand.label;
      cvcField.querySelector('.pg-field__hint').textContent = t(brand.cvc === 4 ? 'cvcHint4' : 'cvcHint3');
      if (number._error.textContent) validateNumber();
    });
    expiry.addEventListener('input', function (ev) {
      var d = expiry.value.replace(/\D/g, '').slice(0, 4);
      if (d.length === 1 && d > '1') d = '0' + d;
      expiry.value = d.length > 2 || (d.length === 2 && ev.inputType !== 'deleteContentBackward') ? d.slice(0, 2) + '/' + d.slice(2) : d;
      if (expiry._error.textContent) validateExpiry();
    });
    cvc.addEventListener('input', function () {
      cvc.value = cvc.value.replace(/\D/g, '').slice(0, 4);
      if (cvc._error.textContent) validateCvc();
    });

    function validateNumber() {
      var digits = number.value.replace(/\D/g, '');
      var msg = '';
      if (brand.lengths.indexOf(digits.length) < 0 && digits.length < Math.max.apply(null, brand.lengths)) msg = t(digits ? 'errNumberIncomplete' : 'errNumber');
      else if (brand.lengths.indexOf(digits.length) < 0 || !luhn(digits)) msg = t('errNumber');
      setError(number, msg);
      return !msg;
    }
    function expiryParts() {
      var m = /^(\d{2})\/(\d{2})$/.exec(expiry.value);
      if (!m) return null;
      var month = +m[1], year = 2000 + +m[2];
      return month >= 1 && month <= 12 ? { month: m[1], year: String(year) } : null;
    }
    function validateExpiry() {
      var p = expiryParts(), msg = '';
      if (!p) msg = t('errExpiry');
      else {
        var now = new Date();
        if (+p.year < now.getFullYear() || (+p.year === now.getFullYear() && +p.month < now.getMonth() + 1)) msg = t('errExpired');
      }
      setError(expiry, msg);
      return !msg;
    }
    function validateCvc() {
      var ok = cvc.value.length === brand.cvc;
      setError(cvc, ok ? '' : t('errCvc'));
      return ok;
    }
    number.addEventListener('blur', function () { if (number.value) validateNumber(); });
    expiry.addEventListener('blur', function () { if (expiry.value) validateExpiry(); });
    cvc.addEventListener('blur', function () { if (cvc.value) validateCvc(); });

    var form = el('form', { className: 'pg-card', novalidate: true, autocomplete: 'on' }, [
      numberField,
      el('div', { className: 'pg-row' }, [this.field('expiry', t('expiryDate'), expiry, t('expiryHint')), cvcField]),
      this.field('holder', t('holderName'), holder),
      pay
    ]);
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var ok = [validateNumber(), validateExpiry(), validateCvc()];
      if (ok.indexOf(false) >= 0) {
        var bad = form.querySelector('[aria-invalid="true"]');
        if (bad) bad.focus();
        return;
      }
      var p = expiryParts();
      var typed = {
        number: number.value.replace(/\D/g, ''), expiryMonth: p.month, expiryYear: p.year, cvc: cvc.value,
        holderName: holder.value.trim()
      };
      var cardBrand = brand.brand;
      self.submit(function () {
        return encryptCard(self.checkout.encryptionKey, typed).then(function (fields) {
          var method = { type: 'scheme' };
          if (cardBrand) method.brand = cardBrand;
          for (var k in fields) method[k] = fields[k];
          return method;
        });
      }, pay);
    });
    return form;
  };

  Dropin.prototype.walletButton = function (type) {
    var self = this;
    var b = el('button', { type: 'button', className: 'pg-pay pg-pay--' + type, text: this.t('payWith', { method: this.t(type) }) });
    b.addEventListener('click', function () {
      var m = { type: type };
      m[type === 'applepay' ? 'applePayToken' : 'googlePayToken'] = 'test_' + type + '_authorised';
      self.submit(m, b);
    });
    return b;
  };

  Dropin.prototype.payLabel = function () {
    var a = this.checkout.amount;
    return a ? this.t('pay', { amount: formatAmount(a, this.checkout.lang) }) : this.t('pay', { amount: '' }).trim();
  };

  Dropin.prototype.setBusy = function (busy, button) {
    this.busy = busy;
    var buttons = this.root.querySelectorAll('button, input');
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = busy; });
    if (button) {
      if (busy) { button._label = button.textContent; button.textContent = this.t('processing'); button.setAttribute('aria-busy', 'true'); }
      else if (button._label) { button.textContent = button._label; button.removeAttribute('aria-busy'); }
    }
  };

  Dropin.prototype.showError = function (message) {
    if (!this.errorBox) return;
    this.errorBox.textContent = message || '';
    this.errorBox.hidden = !message;
  };

  // submit sends a payment: through the session, or to onSubmit. The
  // method may be a function that returns a promise of it (a card, which
  // is encrypted first).
  Dropin.prototype.submit = function (paymentMethod, button) {
    if (this.busy) return;
    var self = this, co = this.checkout, cfg = co.config;
    this.showError('');
    this.setBusy(true, button);
    this.button = button;
    var method = typeof paymentMethod === 'function' ? paymentMethod() : Promise.resolve(paymentMethod);
    method.then(function (pm) {
      var data = { paymentMethod: pm, browserInfo: browserInfo() };
      if (!co.session) {
        if (!cfg.onSubmit) throw new Error('PaygateCheckout: the advanced flow needs onSubmit');
        cfg.onSubmit({ data: data, isValid: true }, self);
        return;
      }
      data.sessionData = co.session.sessionData;
      co.post('/payments', data).then(function (r) { self.handleResponse(r); }, function (err) { self.fail(err); });
    }, function (err) {
      self.fail(new ApiError(0, { error: { code: 'encryption_failed', message: 'The card could not be encrypted: ' + (err && err.message || err) } }));
    });
  };

  // details sends an action's answer: through the session, or to
  // onAdditionalDetails.
  Dropin.prototype.details = function (data) {
    var self = this, co = this.checkout, cfg = co.config;
    if (!co.session) {
      if (!cfg.onAdditionalDetails) throw new Error('PaygateCheckout: the advanced flow needs onAdditionalDetails');
      cfg.onAdditionalDetails({ data: data }, this);
      return Promise.resolve();
    }
    this.setBusy(true, this.button);
    var body = { sessionData: co.session.sessionData, details: data.details };
    if (data.paymentData) body.paymentData = data.paymentData;
    return co.post('/payments/details', body).then(function (r) { self.handleResponse(r); }, function (err) { self.fail(err); });
  };

  // handleResponse takes a /payments or /payments/details answer.
  Dropin.prototype.handleResponse = function (r) {
    if (r && r.action) return this.handleAction(r.action);
    this.finish(r || { resultCode: 'Error' });
  };

  Dropin.prototype.handleAction = function (action) {
    var self = this;
    this.emit({ type: 'Action', action: action });
    if (action.type === 'redirect') {
      window.location.assign(action.url);
      return;
    }
    if (action.type !== 'threeDS2') return this.fail(new ApiError(0, { error: { code: 'action_unsupported', message: 'unsupported action ' + action.type } }));
    if (action.subtype === 'fingerprint') {
      // The sandbox's directory server needs no device data: the method
      // is complete at once.
      return this.details({ details: { threeDSResult: b64json({ authorisationToken: action.authorisationToken, threeDSCompInd: 'Y' }) } });
    }
    var token = {};
    try { token = JSON.parse(atob(action.token)); } catch (e) { token = {}; }
    if (!/^https:\/\/sandbox\.paygate\.test\//.test(token.acsURL || '')) {
      return this.fail(new ApiError(0, { error: { code: 'action_unsupported', message: 'only the sandbox issuer challenge is supported' } }));
    }
    this.challenge(action, token);
  };

  // challenge shows the sandbox issuer's challenge screen (its own page, in
  // a frame) and answers with the transStatus it posts back.
  Dropin.prototype.challenge = function (action, token) {
    var self = this, t = this.t;
    var envOrigin = new URL(this.checkout.environment).origin;
    var frame = el('iframe', {
      className: 'pg-challenge__frame', title: t('challengeFrame'),
      src: this.checkout.environment + '/sandbox/3ds2/challenge#' + encodeURIComponent(JSON.stringify({ locale: this.checkout.lang, acsTransID: token.acsTransID || '' }))
    });
    var heading = el('h2', { className: 'pg-challenge__title', tabindex: '-1', text: t('challengeTitle') });
    this.root.textContent = '';
    this.root.appendChild(el('div', { className: 'pg-challenge' }, [heading, frame]));
    heading.focus();
    this.onMessage = function (ev) {
      if (ev.origin !== envOrigin || ev.source !== frame.contentWindow || !ev.data || ev.data.type !== 'paygate:3ds2:cres') return;
      window.removeEventListener('message', self.onMessage);
      self.onMessage = null;
      self.details({ details: { threeDSResult: b64json({ transStatus: String(ev.data.transStatus || ''), authorisationToken: action.authorisationToken }) } });
    };
    window.addEventListener('message', this.onMessage);
  };

  Dropin.prototype.finish = function (r) {
    var code = r.resultCode || 'Error';
    var cfg = this.checkout.config;
    this.setBusy(false, this.button);
    this.emit({ type: 'Finished', resultCode: code.charAt(0).toLowerCase() + code.slice(1) });
    var kind = { Authorised: 'success', Refused: 'refused', Cancelled: 'cancelled', Pending: 'pending', Received: 'pending' }[code] || 'error';
    this.result(kind, code === 'Refused' && r.refusalReason ? r.refusalReason : '');
    if (kind === 'success' || kind === 'pending') {
      if (cfg.onPaymentCompleted) cfg.onPaymentCompleted(r, this);
    } else if (cfg.onPaymentFailed) {
      cfg.onPaymentFailed(r, this);
    }
  };

  // result replaces the component with a result screen; failures offer a retry.
  Dropin.prototype.result = function (kind, reason) {
    var self = this;
    var retry = kind === 'refused' || kind === 'cancelled' || kind === 'error';
    renderResult(this.root, kind, this.t, {
      reason: reason,
      retry: retry ? function () {
        if (self.checkout.config.onRetry) self.checkout.config.onRetry(self);
        else { self.renderMethods(); self.emit({ type: 'Update', paymentMethods: self.checkout.paymentMethods }); }
      } : null
    });
  };

  // setStatus shows a result the merchant decided (advanced flow).
  Dropin.prototype.setStatus = function (status) {
    if (status === 'success' || status === 'error') this.result(status, '');
    else if (status === 'ready') { this.setBusy(false, this.button); this.renderMethods(); }
    return this;
  };

  Dropin.prototype.fail = function (err) {
    var cfg = this.checkout.config;
    this.setBusy(false, this.button);
    if (!this.root.querySelector('.pg-methods')) this.renderMethods();
    var ended = SESSION_ENDED.indexOf(err.code) >= 0;
    var msg = err.status === 0 && err.code === 'network_error' ? this.t('networkError') : ended ? this.t('sessionEnded') : err.message;
    this.showError(msg);
    this.emit({ type: 'Error', message: msg, reason: err.code, dismiss: false });
    if (cfg.onError) cfg.onError(err, this);
  };

  // renderResult draws a result screen (the hosted page uses it for the
  // states of its link too).
  function renderResult(node, kind, t, opts) {
    opts = opts || {};
    var titles = {
      success: 'successTitle', refused: 'refusedTitle', cancelled: 'cancelledTitle', error: 'errorTitle', pending: 'pendingTitle',
      paid: 'paidTitle', linkCancelled: 'linkCancelledTitle', expired: 'expiredTitle'
    };
    var texts = {
      success: 'successText', refused: 'refusedText', cancelled: 'cancelledText', error: 'errorText', pending: 'pendingText',
      paid: 'paidText', linkCancelled: 'linkCancelledText', expired: 'expiredText'
    };
    var heading = el('h2', { className: 'pg-result__title', tabindex: '-1', text: t(titles[kind] || 'errorTitle') });
    var box = el('div', { className: 'pg-result pg-result--' + kind, role: 'status' }, [
      el('span', { className: 'pg-result__icon', 'aria-hidden': 'true' }),
      heading,
      el('p', { className: 'pg-result__text', text: t(texts[kind] || 'errorText') }),
      opts.reason ? el('p', { className: 'pg-result__reason', text: t('reason', { reason: opts.reason }) }) : null,
      opts.retry ? el('button', { type: 'button', className: 'pg-pay pg-retry', text: t('retry'), onclick: opts.retry }) : null
    ]);
    node.textContent = '';
    node.appendChild(box);
    heading.focus();
    return box;
  }

  function browserInfo() {
    return {
      acceptHeader: 'text/html', colorDepth: screen.colorDepth || 24, javaEnabled: false, javaScriptEnabled: true,
      language: navigator.language || 'en', screenHeight: screen.height || 0, screenWidth: screen.width || 0,
      timeZoneOffset: new Date().getTimezoneOffset(), userAgent: navigator.userAgent.slice(0, 256)
    };
  }

  // PaygateCheckout creates a checkout: with a session it reads the
  // session's setup first (amount, payment methods).
  function PaygateCheckout(config) {
    config = config || {};
    if (!config.session) return Promise.resolve(new Checkout(config, null));
    var co = new Checkout(config, null);
    return co.post('/setup', { sessionData: config.session.sessionData }).then(function (setup) {
      var full = new Checkout(config, setup);
      return full;
    }, function (err) {
      if (config.onError) config.onError(err, null);
      throw err;
    });
  }

  PaygateCheckout.version = VERSION;
  PaygateCheckout.encryptCard = encryptCard;
  PaygateCheckout.locale = pickLocale;
  PaygateCheckout.translator = translator;
  PaygateCheckout.renderResult = renderResult;
  PaygateCheckout.formatAmount = formatAmount;
  window.PaygateCheckout = PaygateCheckout;
})();
