/* Hall view: one card per table, replaced live from the hall's event stream. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("cfg").textContent);
  if (!window.EventSource) return;
  var es = new EventSource(cfg.events_url);
  var live = document.getElementById("live");
  es.onopen = function () { if (live) { live.classList.add("on"); live.classList.remove("off"); } };
  es.onerror = function () { if (live) { live.classList.remove("on"); live.classList.add("off"); } };
  es.addEventListener("table", function (ev) {
    var payload = JSON.parse(ev.data);
    var id = payload.table && payload.table.id;
    if (id === undefined || id === null) return;
    var grid = document.getElementById("hall");
    var tmp = document.createElement("div");
    tmp.innerHTML = payload.html.trim();
    var card = tmp.firstElementChild;
    var old = document.getElementById("card-" + id);
    if (old) {
      var changed = old.outerHTML !== card.outerHTML;
      old.replaceWith(card);
      if (changed) card.classList.add("flash-update");
    } else {
      grid.appendChild(card);
      var empty = document.getElementById("hall-empty");
      if (empty) empty.remove();
    }
    var n = grid.children.length, count = document.getElementById("hall-count");
    if (count) count.textContent = n + " table" + (n === 1 ? "" : "s") + " on this server";
    document.body.setAttribute("data-seq", String(payload.seq || 0));
  });
})();
