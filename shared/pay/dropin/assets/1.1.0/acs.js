/*! paygate sandbox issuer (ACS) 1.1.0: the 3-D Secure challenge screen of the sandbox. It answers
 * the frame's parent with the challenge's transStatus: Y for the password "password", N for any
 * other, U when the shopper cancels. It sees no card data. */
(function () {
  'use strict';
  var TEXT = {
    ru: { bank: 'Песочница-Банк', title: 'Подтвердите платёж', text: 'Введите пароль, который прислал ваш банк.',
      hint: 'Тестовый пароль:', password: 'Пароль', confirm: 'Подтвердить', cancel: 'Отмена' },
    kk: { bank: 'Құмсалғыш Банк', title: 'Төлемді растаңыз', text: 'Банкіңіз жіберген құпиясөзді енгізіңіз.',
      hint: 'Сынақ құпиясөзі:', password: 'Құпиясөз', confirm: 'Растау', cancel: 'Бас тарту' }
  };
  var opts = {};
  try { opts = JSON.parse(decodeURIComponent(location.hash.slice(1))) || {}; } catch (e) { opts = {}; }
  var lang = String(opts.locale || '').slice(0, 2);
  if (TEXT[lang]) {
    document.documentElement.lang = lang;
    Array.prototype.forEach.call(document.querySelectorAll('[data-t]'), function (n) {
      var s = TEXT[lang][n.getAttribute('data-t')];
      if (s) n.textContent = s;
    });
  }
  var form = document.getElementById('pg-acs-form');
  var input = document.getElementById('pg-acs-password');
  var done = false;
  function answer(status) {
    if (done) return;
    done = true;
    Array.prototype.forEach.call(form.querySelectorAll('button, input'), function (b) { b.disabled = true; });
    // The answer is no secret (the issuer's verdict), so any parent may read it; the Drop-in checks
    // that it comes from this frame and this origin.
    window.parent.postMessage({ type: 'paygate:3ds2:cres', transStatus: status }, '*');
  }
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    answer(input.value === 'password' ? 'Y' : 'N');
  });
  document.getElementById('pg-acs-cancel').addEventListener('click', function () { answer('U'); });
  input.focus();
})();
