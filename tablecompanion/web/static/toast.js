/* The page's toast (base.html's #toast): a short message that goes away by itself; ok = good news. */
window.tcToast = function (text, ok, ms) {
  "use strict";
  var t = document.getElementById("toast");
  if (!t) return;
  t.textContent = text;
  t.className = "toast show" + (ok ? " ok" : "");
  clearTimeout(window.tcToast.timer);
  window.tcToast.timer = setTimeout(function () { t.className = "toast"; }, ms || 4000);
};
