/* Table and display views: live updates by Server-Sent Events, hover hints, click-to-move, operator
   actions sent as JSON with the session's CSRF token. No framework, no external assets. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("cfg").textContent);
  var state = { plays: cfg.plays || [], mover: cfg.mover || null, board: cfg.mover_board || null,
                seq: 0, moves: [], selected: null };
  /* decisions worth a toast in the table view (true = good news, false = a warning) */
  var NOTABLE = { illegal_play_flagged: false, illegal_play_stands: false, no_legal_play: true, void_roll: false,
                  undone: true, illegal_play_accepted: true, automatic_double: true, opening_roll_tie: true, game_over: true, match_over: true, timeout: false,
                  correction_out_of_time: false, correction_accepted: true };
  var $ = function (id) { return document.getElementById(id); };

  function toast(text, ok) { window.tcToast(text, ok, 4000); }

  /* ---- live updates ---- */
  function apply(payload) {
    var html = payload.html || {};
    var ids = { board: "board", panel: "panel", plays: "plays", history: "history-box", flags: "flags" };
    Object.keys(ids).forEach(function (k) {
      var el = $(ids[k]);
      if (el && html[k] !== undefined) el.innerHTML = html[k];
    });
    updateControls(payload.table);
    state.plays = payload.plays || [];
    state.mover = payload.mover || null;
    state.board = payload.mover_board || null;
    state.seq = payload.seq || state.seq;
    document.body.setAttribute("data-seq", String(state.seq));
    resetPending();
    if (cfg.view === "table") {
      (payload.events || []).forEach(function (e) {
        (e.decisions || []).forEach(function (d) {
          if (d && d.message && NOTABLE[d.decision] !== undefined) toast(d.message, NOTABLE[d.decision]);
        });
      });
    }
    clockT0 = Date.now();
    var page = $("table-page") || $("display-page");
    if (page) page.setAttribute("data-updated", String(Date.now()));
  }

  function connect() {
    if (!window.EventSource) return;
    var es = new EventSource(cfg.events_url);
    var live = $("live");
    es.addEventListener("state", function (ev) {
      var payload = JSON.parse(ev.data);
      if (payload.seq && payload.seq <= state.seq) return;
      apply(payload);
    });
    es.onopen = function () { if (live) { live.classList.add("on"); live.classList.remove("off"); } };
    es.onerror = function () { if (live) { live.classList.remove("on"); live.classList.add("off"); } };
  }

  /* ---- legal plays as single-die steps: where can a checker go? ---- */
  function deltaOf(steps, mask) {
    var d = {};
    for (var i = 0; i < steps.length; i++) {
      if (mask >> i & 1) {
        d[steps[i][0]] = (d[steps[i][0]] || 0) - 1;
        d[steps[i][1]] = (d[steps[i][1]] || 0) + 1;
      }
    }
    return d;
  }
  function keyOf(d) {
    return Object.keys(d).filter(function (k) { return d[k]; }).sort(function (a, b) { return a - b; })
      .map(function (k) { return k + ":" + d[k]; }).join(",");
  }
  function pendingDelta() {
    var d = {};
    state.moves.forEach(function (m) { d[m[0]] = (d[m[0]] || 0) - 1; d[m[1]] = (d[m[1]] || 0) + 1; });
    return d;
  }
  /* destinations (mover's numbering) for a checker on src, given the moves entered so far */
  function destinations(src) {
    var cur = keyOf(pendingDelta());
    var out = {};
    state.plays.forEach(function (p) {
      var steps = p.steps || [], n = steps.length, full = (1 << n) - 1;
      for (var m = 0; m <= full; m++) {
        if (keyOf(deltaOf(steps, m)) !== cur) continue;
        for (var m2 = 0; m2 <= full; m2++) {
          if ((m2 & m) !== m || m2 === m) continue;
          var d = deltaOf(steps, m2 & ~m), ks = Object.keys(d).filter(function (k) { return d[k]; });
          if (ks.length !== 2 || d[src] !== -1) continue;
          var dst = ks[0] == src ? ks[1] : ks[0];
          if (d[dst] === 1) out[dst] = true;
        }
      }
    });
    return Object.keys(out).map(Number);
  }
  function completedPlays() {
    var cur = keyOf(pendingDelta());
    return state.plays.filter(function (p) {
      var steps = p.steps || [];
      return steps.length && keyOf(deltaOf(steps, (1 << steps.length) - 1)) === cur;
    }).map(function (p) { return p.play; });
  }

  /* mover's numbering <-> board elements */
  function elFor(n) {
    var svg = document.querySelector("#board svg");
    if (!svg || !state.mover) return null;
    if (n === 25) return svg.querySelector('.barzone[data-side="' + state.mover + '"]');
    if (n === 0) return svg.querySelector('.offzone[data-side="' + state.mover + '"]');
    var x = state.mover === "X" ? n : 25 - n;
    return svg.querySelector('.pt[data-x="' + x + '"]');
  }
  function numberOf(el) {
    if (!el || !state.mover) return null;
    if (el.classList.contains("barzone")) return el.getAttribute("data-side") === state.mover ? 25 : null;
    if (el.classList.contains("offzone")) return el.getAttribute("data-side") === state.mover ? 0 : null;
    var x = Number(el.getAttribute("data-x"));
    return state.mover === "X" ? x : 25 - x;
  }
  function zoneOf(target) { return target && target.closest ? target.closest(".pt, .barzone, .offzone") : null; }
  function clearMarks(cls) {
    document.querySelectorAll("#board ." + cls).forEach(function (e) { e.classList.remove(cls); });
  }
  function mark(nums, cls) { nums.forEach(function (n) { var el = elFor(n); if (el) el.classList.add(cls); }); }
  function checkersLeft(n) {
    if (!state.board) return 0;
    return (state.board[n] || 0) + (pendingDelta()[n] || 0);
  }

  function onHover(ev) {
    if (state.selected !== null) return;
    clearMarks("dest");
    var src = numberOf(zoneOf(ev.target));
    if (src === null || src === 0 || checkersLeft(src) <= 0) return;
    mark(destinations(src), "dest");
  }

  function svgEl(tag, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
  function drawPending() {
    var svg = document.querySelector("#board svg");
    if (!svg) return;
    svg.querySelectorAll(".ghost").forEach(function (g) { g.remove(); });
    clearMarks("moved-from");
    var d = pendingDelta();
    Object.keys(d).forEach(function (k) {
      var n = Number(k), el = elFor(n);
      if (!el || !d[k]) return;
      var count = Number(el.getAttribute("data-n") || 0);
      var ax = Number(el.getAttribute("data-ax")), ay = Number(el.getAttribute("data-ay")), dy = Number(el.getAttribute("data-dy"));
      if (d[k] > 0) {
        for (var i = 0; i < d[k]; i++) {
          var slot = Math.min(count + i, 4);
          svg.appendChild(svgEl("circle", { "class": "ghost", cx: ax, cy: n === 0 ? ay : ay + slot * dy, r: 17 }));
        }
      } else {
        var cks = el.querySelectorAll(".ck");
        for (var j = 0; j < -d[k] && j < cks.length; j++) cks[cks.length - 1 - j].classList.add("moved-from");
      }
    });
  }
  function resetPending() {
    state.moves = []; state.selected = null;
    var p = $("pending"); if (p) p.textContent = "";
    document.querySelectorAll(".play-item.match").forEach(function (e) { e.classList.remove("match"); });
  }
  function showPending() {
    var text = state.moves.map(function (m) {
      return (m[0] === 25 ? "bar" : m[0]) + "/" + (m[1] === 0 ? "off" : m[1]);
    }).join(" ");
    var done = completedPlays();
    var p = $("pending");
    if (p) p.textContent = text ? (done.length ? "→ " + done[0] + (done.length > 1 ? " (or " + done.slice(1).join(", ") + ")" : "") + " — press Play" : "entered: " + text) : "";
    document.querySelectorAll(".play-item").forEach(function (e) {
      e.classList.toggle("match", done.indexOf(e.getAttribute("data-play")) >= 0);
    });
    var input = $("play-input");
    if (input && done.length) input.value = done[0];
    drawPending();
  }

  function onClick(ev) {
    if (!cfg.operator) return;
    var zone = zoneOf(ev.target), n = numberOf(zone);
    if (n === null) { clearMarks("dest"); state.selected = null; clearMarks("sel-ck"); return; }
    if (state.selected !== null && zone.classList.contains("dest")) {
      state.moves.push([state.selected, n]);
      state.selected = null;
      clearMarks("dest"); clearMarks("sel-ck");
      showPending();
      return;
    }
    clearMarks("dest"); clearMarks("sel-ck");
    if (n === 0 || checkersLeft(n) <= 0) { state.selected = null; return; }
    var dests = destinations(n);
    if (!dests.length) { state.selected = null; return; }
    state.selected = n;
    var cks = zone.querySelectorAll(".ck:not(.moved-from)");
    if (cks.length) cks[cks.length - 1].classList.add("sel-ck");
    mark(dests, "dest");
  }

  /* ---- which controls make sense now (the referee still decides: this only greys the others out) ---- */
  function updateControls(t) {
    if (!cfg.operator || !t) return;
    var a = t.awaiting, flag = t.open_flag, known = ["opening_roll", "roll_or_double", "roll", "play", "take_or_pass",
      "resign_response", "match_over", "members_respond"].indexOf(a) >= 0;
    var beaver = t.settings && t.settings.beaver;
    var on = {
      roll: ["opening_roll", "roll_or_double", "roll"].indexOf(a) >= 0,
      play: a === "play" || !!flag,
      double: a === "roll_or_double" && t.can_double !== false,
      take: a === "take_or_pass", pass: a === "take_or_pass", beaver: a === "take_or_pass" && !!beaver,
      resign: ["roll_or_double", "roll", "play"].indexOf(a) >= 0,
      accept_resign: a === "resign_response", reject_resign: a === "resign_response",
      accept_illegal: !!(flag && flag.can_accept),
      void: !!t.dice, undo: (t.events || 0) > 0, new_game: t.status === "game_over"
    };
    var label = $("roll-label"), players = t.players || {};
    if (label) label.textContent = a === "opening_roll"
      ? "Opening roll: " + (players.X || "X") + "'s die, then " + (players.O || "O") + "'s" : "Roll";
    var waiting = (t.chouette && t.chouette.waiting_for) || [];
    document.querySelectorAll("#controls form[data-action]").forEach(function (form) {
      var name = form.getAttribute("data-action"), enabled = !known || on[name] !== false;
      var member = form.getAttribute("data-member");
      if (member !== null) enabled = a === "members_respond" && waiting.indexOf(member) >= 0;
      else if (a === "members_respond" && (name === "take" || name === "pass")) enabled = false;
      form.querySelectorAll("button, input:not([type=hidden]), select").forEach(function (el) { el.disabled = !enabled; });
    });
  }

  /* ---- operator actions ---- */
  function send(body) {
    return fetch(cfg.actions_url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": cfg.csrf },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) { toast(j.error || ("refused (" + r.status + ")")); return null; }
        if (j.table && window.EventSource === undefined) location.reload();
        return j;
      });
    }).catch(function () { toast("The server cannot be reached."); return null; });
  }
  function formBody(form) {
    var body = { action: form.getAttribute("data-action") };
    if (body.action === "roll") {
      var raw = (form.querySelector("[name=dice]").value || "").replace(/[^1-6]/g, "");
      if (raw.length !== 2) { toast("Enter the two dice, e.g. 6 3"); return null; }
      body.dice = [Number(raw[0]), Number(raw[1])];
    } else if (body.action === "play") {
      body.play = form.querySelector("[name=play]").value.trim();
    } else if (body.action === "resign") {
      body.level = form.querySelector("[name=level]").value;
    }
    if (form.getAttribute("data-member") !== null) body.member = form.getAttribute("data-member");
    return body;
  }
  function wireControls() {
    document.querySelectorAll("#controls form[data-action]").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var body = formBody(form);
        if (!body) return;
        send(body).then(function (j) {
          if (!j) return;
          if (body.action === "roll") form.querySelector("[name=dice]").value = "";
          if (body.action === "play") form.querySelector("[name=play]").value = "";
        });
      });
    });
    var clear = $("clear-btn");
    if (clear) clear.addEventListener("click", function () {
      resetPending(); drawPending(); clearMarks("dest"); clearMarks("sel-ck");
      $("play-input").value = "";
    });
    /* a roll the camera could not accept only for what a die touches: the operator, seeing it lie flat,
       takes it (the flags box is redrawn on every update, so the click is caught on its container) */
    var flagsBox = $("flags");
    if (flagsBox) flagsBox.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest(".propose-btn");
      if (!b) return;
      var dice = (b.getAttribute("data-dice") || "").split(" ").map(Number);
      if (dice.length === 2) send({ action: "roll", dice: dice });
    });
    var plays = $("plays");
    if (plays) plays.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest(".play-item");
      if (b && cfg.operator && $("play-input")) { $("play-input").value = b.getAttribute("data-play"); $("play-input").focus(); }
    });
  }

  /* the running clock counts down between updates: first the delay, then the bank */
  var clockT0 = Date.now();
  function mmss(s) { s = Math.max(0, Math.round(s)); return Math.floor(s / 60) + ":" + ("0" + s % 60).slice(-2); }
  setInterval(function () {
    document.querySelectorAll('.sb-clock[data-running="1"]').forEach(function (el) {
      var bank = parseFloat(el.getAttribute("data-seconds")), delay = parseFloat(el.getAttribute("data-delay")) || 0;
      if (isNaN(bank)) return;
      var e = (Date.now() - clockT0) / 1000, d = delay - e;
      el.textContent = d > 0 ? mmss(bank) + " +" + Math.ceil(d) + "s" : mmss(bank + d);
    });
  }, 500);

  var board = $("board");
  if (board && cfg.view === "table") {
    board.addEventListener("mouseover", onHover);
    board.addEventListener("mouseleave", function () { if (state.selected === null) clearMarks("dest"); });
    board.addEventListener("click", onClick);
  }
  if (cfg.operator) { wireControls(); updateControls(cfg.table); }
  connect();
})();
