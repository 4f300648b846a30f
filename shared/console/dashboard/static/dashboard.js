// The dashboard's only script: copy buttons (a payment link's url, a new
// key's secret) and a confirmation before a form that cannot be undone.
// Everything works without it.
document.addEventListener("click", function (ev) {
  var b = ev.target.closest("[data-copy]");
  if (!b) return;
  var text = b.getAttribute("data-copy");
  if (navigator.clipboard) {
    navigator.clipboard.writeText(text).then(function () { b.textContent = "Copied"; });
  }
});
document.addEventListener("submit", function (ev) {
  var msg = ev.target.getAttribute("data-confirm");
  if (msg && !window.confirm(msg)) ev.preventDefault();
});
