/* The calibration page: four clicks on the camera's picture (any order; dots, undo, reset, a loupe for
   precision), then the corners as JSON to the server, which saves the profile and answers with the
   annotated picture to check. Clicks are kept in the picture's own pixels, so resizing the window between
   clicks changes nothing. No framework, no external assets. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("cfg").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var SVG = "http://www.w3.org/2000/svg";
  var img = $("cal-img"), overlay = $("cal-overlay"), loupe = $("cal-loupe");
  var save = $("cal-save"), undo = $("cal-undo"), reset = $("cal-reset"), count = $("cal-count");
  var errorBox = $("cal-error");
  var clicks = [];  /* [x, y] in the picture's own pixels */
  var busy = false;

  function toast(text, ok) { window.tcToast(text, ok, 5000); }

  function showError(text) {
    if (!errorBox) return;
    errorBox.textContent = text || "";
    errorBox.hidden = !text;
  }

  function natural() { return [cfg.width || img.naturalWidth, cfg.height || img.naturalHeight]; }

  /* the clicks in order round their centre, so the outline drawn never crosses itself */
  function aroundCentre(pts) {
    var cx = 0, cy = 0;
    pts.forEach(function (p) { cx += p[0] / pts.length; cy += p[1] / pts.length; });
    return pts.slice().sort(function (a, b) {
      return Math.atan2(a[1] - cy, a[0] - cx) - Math.atan2(b[1] - cy, b[0] - cx);
    });
  }

  function el(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function draw() {
    if (!overlay) return;
    while (overlay.firstChild) overlay.removeChild(overlay.firstChild);
    var size = natural();
    var r = Math.max(4, size[0] / 140), stroke = Math.max(1.5, size[0] / 500);
    if (clicks.length >= 2) {
      var pts = (clicks.length === 4 ? aroundCentre(clicks) : clicks).map(function (p) { return p.join(","); }).join(" ");
      var attrs = { points: pts, "class": "cal-edge", "stroke-width": stroke };
      if (clicks.length < 4) attrs.fill = "none";
      overlay.appendChild(el(clicks.length === 4 ? "polygon" : "polyline", attrs));
    }
    clicks.forEach(function (p, i) {
      overlay.appendChild(el("circle", { cx: p[0], cy: p[1], r: r, "class": "cal-dot", "stroke-width": stroke }));
      overlay.appendChild(el("text", { x: p[0], y: p[1], "class": "cal-label", "font-size": r * 1.3 }, String(i + 1)));
    });
    var n = clicks.length;
    count.textContent = n < 4 ? "Click corner " + (n + 1) + " of 4" : "4 corners: save the profile";
    count.classList.toggle("done", n === 4);
    save.disabled = n !== 4 || busy;
    undo.disabled = n === 0;
    reset.disabled = n === 0;
    document.body.setAttribute("data-clicks", String(n));
  }

  /* where on the picture a pointer event is, in the picture's own pixels */
  function at(ev) {
    var rect = img.getBoundingClientRect(), size = natural();
    return [(ev.clientX - rect.left) * size[0] / rect.width, (ev.clientY - rect.top) * size[1] / rect.height];
  }

  function moveLoupe(ev) {
    if (!loupe || !img.complete) return;
    var rect = img.getBoundingClientRect(), p = at(ev), size = natural();
    var zoom = 3 * size[0] / rect.width;  /* three times what the page shows */
    var ctx = loupe.getContext("2d"), w = loupe.width, src = w / zoom;
    ctx.imageSmoothingEnabled = false;
    ctx.clearRect(0, 0, w, w);
    ctx.drawImage(img, p[0] - src / 2, p[1] - src / 2, src, src, 0, 0, w, w);
    ctx.strokeStyle = "rgba(242, 201, 76, .95)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(w / 2, 0); ctx.lineTo(w / 2, w); ctx.moveTo(0, w / 2); ctx.lineTo(w, w / 2);
    ctx.stroke();
    var x = ev.clientX - rect.left, y = ev.clientY - rect.top;
    /* beside the pointer, on the side with more room */
    loupe.style.left = (x > rect.width - 190 ? x - 170 : x + 20) + "px";
    loupe.style.top = (y > rect.height - 190 ? y - 170 : y + 20) + "px";
    loupe.classList.add("on");
  }

  function send() {
    if (clicks.length !== 4 || busy) return;
    var form = $("cal-form");
    var rect = img.getBoundingClientRect(), size = natural();
    var sx = rect.width / size[0], sy = rect.height / size[1];
    var body = {
      corners: clicks.map(function (p) { return [p[0] * sx, p[1] * sy]; }),
      displayed_size: [rect.width, rect.height],
      name: form.elements.name.value.trim(),
      home: form.elements.home.value,
      bottom: form.elements.bottom.value,
      seat: form.elements.seat.value,
      picture: cfg.picture
    };
    busy = true;
    draw();
    showError("");
    fetch(cfg.calibrate_url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": cfg.csrf },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) { showError(j.error || ("refused (" + r.status + ")")); return; }
        shown(j);
      });
    }).catch(function () {
      showError("The server cannot be reached.");
    }).then(function () { busy = false; draw(); });
  }

  function shown(j) {
    var p = j.profile || {};
    var box = $("cal-result"), pic = $("cal-result-img"), summary = $("cal-summary");
    var names = { X: cfg.names && cfg.names.X, O: cfg.names && cfg.names.O };
    pic.onload = function () {
      document.body.setAttribute("data-result", "shown");
      box.scrollIntoView({ behavior: "smooth", block: "start" });
    };
    pic.src = j.annotated_url;
    $("cal-result-link").href = j.annotated_url;
    summary.textContent = "";
    function add(tag, text) {
      var e = tag ? document.createElement(tag) : document.createTextNode(text);
      if (tag) e.textContent = text;
      summary.appendChild(e);
    }
    add(null, "Saved as profile ");
    add("strong", p.name);
    add(null, " in " + p.path + ". Home boards on the " + p.home + ", " + (p.bottom || "?") +
        (names[p.bottom] ? " (" + names[p.bottom] + ")" : "") + " at the bottom. ");
    if (j.applied) {
      add("strong", "The camera uses it now.");
    } else {
      add(null, "Start the camera with it: ");
      add("code", j.use);
    }
    box.hidden = false;
  }

  if (img) {
    img.addEventListener("click", function (ev) {
      if (clicks.length >= 4) { toast("Four corners already: undo one or reset to click again."); return; }
      clicks.push(at(ev));
      draw();
    });
    img.addEventListener("mousemove", moveLoupe);
    img.addEventListener("mouseleave", function () { if (loupe) loupe.classList.remove("on"); });
    undo.addEventListener("click", function () { clicks.pop(); draw(); });
    reset.addEventListener("click", function () { clicks = []; draw(); });
    document.addEventListener("keydown", function (ev) {
      var tag = (ev.target && ev.target.tagName) || "";
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
      if (ev.key === "Backspace" || ((ev.ctrlKey || ev.metaKey) && ev.key === "z")) {
        if (clicks.length) { clicks.pop(); draw(); ev.preventDefault(); }
      } else if (ev.key === "Escape") { clicks = []; draw(); }
    });
    draw();
  }
  var form = $("cal-form");
  if (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      if (!img) { showError("Upload a picture first."); return; }
      send();
    });
  }
  document.body.setAttribute("data-ready", "1");
})();
