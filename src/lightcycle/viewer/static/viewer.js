// lightcycle's replay viewer: plays the data block of this page on a 2D canvas.
// No network, no libraries, no build step: the page must open from disk years later.
// Grid boards are drawn cell by cell; graph boards (3D meshes) in perspective with the
// same projection as lightcycle.render.picture.orbit, turned by dragging, zoomed by the
// wheel. Tests drive the page through window.lightcycle (see the end of this file).
// Live mode (the data block is {"live": {...}}): the same page fed by a websocket, a
// frame per turn (lightcycle.viewer.live), following the newest turn.
(function () {
  "use strict";

  var BOOT = JSON.parse(document.getElementById("lc-data").textContent);
  var D, P, B, GRAPH, size, wallSet, owner, unit, screen;
  var ownerTurn = -1;
  var live = { on: !!BOOT.live, state: "", open: {} };
  var CAMERA = 3.2;
  var SPEEDS = [1, 2, 5, 10, 20, 50, 100];

  var canvas = document.getElementById("board");
  var ctx = canvas.getContext("2d");
  var stage = document.getElementById("stage");
  var timeline = document.getElementById("timeline");
  var speedBox = document.getElementById("speed");
  var playButton = document.getElementById("play");

  var view = { turn: 0, playing: false, speed: 10, yaw: 0.6, pitch: 0.45, zoom: 1 };
  var frameTimes = [];
  var frameIntervals = [];
  var layout = { cell: 1, dpr: 1, width: 0, height: 0 };

  // Everything that follows from the game's data, once it is known (at once for a
  // replay, on the first frame of a live game).
  function showTitle(title) {
    // a live page's heading is a placeholder until the first frame names the game, and
    // says "live" only while the game goes on
    if (!title) return;
    document.getElementById("title").textContent = title;
    document.title = title;
  }

  function setup(data) {
    D = data; P = D.palette; B = D.board; GRAPH = B.kind === "graph";
    if (D.live) showTitle(D.title);
    size = GRAPH ? B.nodes : B.width * B.height;
    wallSet = new Uint8Array(size);
    B.walls.forEach(function (c) { wallSet[c] = 1; });
    owner = new Int32Array(size);
    ownerTurn = -1;
    unit = [];
    if (GRAPH) {
      var pos = B.positions, n = pos.length, cx = 0, cy = 0, cz = 0, r = 0, i;
      for (i = 0; i < n; i++) { cx += pos[i][0]; cy += pos[i][1]; cz += pos[i][2]; }
      cx /= n; cy /= n; cz /= n;
      for (i = 0; i < n; i++) {
        r = Math.max(r, Math.hypot(pos[i][0] - cx, pos[i][1] - cy, pos[i][2] - cz));
      }
      r = r || 1;
      for (i = 0; i < n; i++) {
        unit.push([(pos[i][0] - cx) / r, (pos[i][1] - cy) / r, (pos[i][2] - cz) / r]);
      }
    }
    screen = new Float64Array(size * 3);
    timeline.max = String(D.last);
    if (GRAPH) graphInput();
  }

  // Trails: [cell, cycle, from, to) intervals, sorted by "from".
  function ownersAt(turn) {
    if (ownerTurn === turn) return owner;
    owner.fill(-1);
    var trails = D.trails;
    for (var i = 0; i < trails.length; i++) {
      var t = trails[i];
      if (t[2] > turn) break;
      if (t[3] === null || turn < t[3]) owner[t[0]] = t[1];
    }
    ownerTurn = turn;
    return owner;
  }

  function teamOf(cycle) { return D.cycles[cycle].team; }
  function headColour(team) { return P.heads[team % P.heads.length]; }
  function trailColour(team) { return P.trails[team % P.trails.length]; }
  function itemColour(kind) { return P.items[kind] || P.itemOther; }
  function itemsAt(turn) { return D.items ? D.items[turn] : []; }

  // -- 3D projection (the same as lightcycle.render.picture.orbit) ----------------------
  function project() {
    var cyw = Math.cos(view.yaw), syw = Math.sin(view.yaw);
    var cp = Math.cos(view.pitch), sp = Math.sin(view.pitch);
    var half = Math.min(layout.width, layout.height) / 2;
    var ox = layout.width / 2, oy = layout.height / 2;
    for (var i = 0; i < unit.length; i++) {
      var x = unit[i][0], y = unit[i][1], z = unit[i][2];
      var x2 = x * cyw - z * syw, z2 = x * syw + z * cyw;
      var y2 = y * cp - z2 * sp, z3 = y * sp + z2 * cp;
      var s = CAMERA / (CAMERA + z3) * 0.85 * view.zoom;
      screen[i * 3] = ox + x2 * s * half;
      screen[i * 3 + 1] = oy - y2 * s * half;
      screen[i * 3 + 2] = (z3 + 1) / 2;
    }
  }

  // -- sizing -----------------------------------------------------------------------------
  function resize() {
    var w = Math.max(100, stage.clientWidth - 20), h = Math.max(100, stage.clientHeight - 20);
    var dpr = window.devicePixelRatio || 1;
    if (GRAPH) {
      var side = Math.floor(Math.min(w, h));
      layout.width = side; layout.height = side;
    } else {
      var cell = Math.max(2, Math.floor(Math.min(w / B.width, h / B.height)));
      layout.cell = cell; layout.width = cell * B.width; layout.height = cell * B.height;
    }
    layout.dpr = dpr;
    canvas.width = Math.round(layout.width * dpr);
    canvas.height = Math.round(layout.height * dpr);
    canvas.style.width = layout.width + "px";
    canvas.style.height = layout.height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    staticLayer = null;
    draw();
  }

  // -- drawing ----------------------------------------------------------------------------
  var staticLayer = null;

  function gridStatic() {
    var layer = document.createElement("canvas");
    layer.width = canvas.width; layer.height = canvas.height;
    var g = layer.getContext("2d");
    g.setTransform(layout.dpr, 0, 0, layout.dpr, 0, 0);
    var c = layout.cell;
    g.fillStyle = P.floor;
    g.fillRect(0, 0, layout.width, layout.height);
    g.fillStyle = P.wall;
    B.walls.forEach(function (cell) {
      g.fillRect((cell % B.width) * c, Math.floor(cell / B.width) * c, c, c);
    });
    if (c >= 8) { // faint grid lines help count cells on big cells
      g.strokeStyle = "rgba(255,255,255,0.035)";
      g.lineWidth = 1;
      g.beginPath();
      for (var x = 1; x < B.width; x++) { g.moveTo(x * c + 0.5, 0); g.lineTo(x * c + 0.5, layout.height); }
      for (var y = 1; y < B.height; y++) { g.moveTo(0, y * c + 0.5); g.lineTo(layout.width, y * c + 0.5); }
      g.stroke();
    }
    return layer;
  }

  function cross(x, y, r, width) {
    ctx.strokeStyle = P.dead;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
    ctx.stroke();
  }

  function drawGrid(turn) {
    if (!staticLayer) staticLayer = gridStatic();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(staticLayer, 0, 0);
    ctx.setTransform(layout.dpr, 0, 0, layout.dpr, 0, 0);
    var c = layout.cell, w = B.width;
    var own = ownersAt(turn);
    for (var cell = 0; cell < size; cell++) {
      var o = own[cell];
      if (o < 0) continue;
      ctx.fillStyle = trailColour(teamOf(o));
      ctx.fillRect((cell % w) * c, Math.floor(cell / w) * c, c, c);
    }
    itemsAt(turn).forEach(function (it) {
      ctx.fillStyle = itemColour(it[1]);
      ctx.fillRect((it[0] % w) * c + c / 4, Math.floor(it[0] / w) * c + c / 4, c / 2, c / 2);
    });
    var heads = D.heads[turn], marks = D.marks[turn];
    for (var k = 0; k < heads.length; k++) {
      var x = (heads[k] % w) * c, y = Math.floor(heads[k] / w) * c;
      if (marks[k] === 1) {
        ctx.fillStyle = headColour(teamOf(k));
        ctx.fillRect(x, y, c, c);
      } else if (marks[k] === 2) {
        cross(x + c / 2, y + c / 2, c / 2 - Math.max(1, c / 6), Math.max(1, c / 5));
      }
    }
  }

  function drawGraph(turn) {
    project();
    ctx.setTransform(layout.dpr, 0, 0, layout.dpr, 0, 0);
    ctx.fillStyle = P.background;
    ctx.fillRect(0, 0, layout.width, layout.height);
    var own = ownersAt(turn);
    var u = Math.min(layout.width, layout.height) / 40 * Math.sqrt(view.zoom);
    var edges = B.edges.slice().sort(function (a, b) {
      return (screen[b[0] * 3 + 2] + screen[b[1] * 3 + 2]) - (screen[a[0] * 3 + 2] + screen[a[1] * 3 + 2]);
    });
    ctx.lineCap = "round";
    edges.forEach(function (e) {
      var a = e[0], b = e[1], oa = own[a];
      var trail = oa >= 0 && own[b] >= 0 && teamOf(oa) === teamOf(own[b]);
      ctx.strokeStyle = trail ? trailColour(teamOf(oa)) : P.edge;
      ctx.lineWidth = trail ? u * 0.45 : Math.max(1, u * 0.12);
      ctx.beginPath();
      ctx.moveTo(screen[a * 3], screen[a * 3 + 1]);
      ctx.lineTo(screen[b * 3], screen[b * 3 + 1]);
      ctx.stroke();
    });
    var heads = D.heads[turn], marks = D.marks[turn], headAt = {};
    for (var k = 0; k < heads.length; k++) if (marks[k] === 1) headAt[heads[k]] = k;
    var items = {};
    itemsAt(turn).forEach(function (it) { items[it[0]] = it[1]; });
    var order = [];
    for (var i = 0; i < size; i++) order.push(i);
    order.sort(function (a, b) { return screen[b * 3 + 2] - screen[a * 3 + 2]; });
    order.forEach(function (node) {
      var near = 1.15 - 0.5 * screen[node * 3 + 2], r, colour;
      if (headAt[node] !== undefined) { r = 0.9; colour = headColour(teamOf(headAt[node])); }
      else if (wallSet[node]) { r = 0.45; colour = P.wall; }
      else if (own[node] >= 0) { r = 0.5; colour = trailColour(teamOf(own[node])); }
      else if (items[node] !== undefined) { r = 0.6; colour = itemColour(items[node]); }
      else { r = 0.22; colour = near < 0.9 ? P.floor : P.edge; }
      ctx.fillStyle = colour;
      ctx.beginPath();
      ctx.arc(screen[node * 3], screen[node * 3 + 1], Math.max(1, u * r * near), 0, 2 * Math.PI);
      ctx.fill();
    });
    for (k = 0; k < heads.length; k++) {
      if (marks[k] === 2) {
        cross(screen[heads[k] * 3], screen[heads[k] * 3 + 1], u * 0.8, Math.max(1, u * 0.27));
      }
    }
  }

  function draw() {
    if (!D) return;
    var t0 = performance.now();
    if (GRAPH) drawGraph(view.turn); else drawGrid(view.turn);
    frameTimes.push(performance.now() - t0);
    if (frameTimes.length > 5000) frameTimes.splice(0, 1000);
    panel();
  }

  // -- the side panel and controls -------------------------------------------------------
  var tbody = document.querySelector("#seats tbody");

  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }

  function panel() {
    var t = view.turn;
    document.getElementById("turninfo").textContent =
      "turn " + t + " of " + D.last + (t === 0 ? " (start)" : "") +
      (view.playing ? " · playing " + view.speed + "/s" : "");
    document.getElementById("turnlabel").textContent = t + " / " + D.last;
    timeline.value = String(t);
    playButton.textContent = view.playing ? "❚❚" : "▶";
    // a replay says how it ends from its first turn (dim until that turn is shown); a
    // live game has no result until it ends
    var result = document.getElementById("result");
    var atEnd = t === D.last;
    result.textContent = !D.result ? "" : atEnd ? D.result : "ends turn " + D.last + ": " + D.result;
    result.className = atEnd && D.result ? "final" : "";
    tbody.textContent = "";
    D.rows[t].forEach(function (row, team) {
      var tr = document.createElement("tr");
      var sw = document.createElement("td");
      var box = text("span", "", "sw");
      box.style.background = headColour(team);
      sw.appendChild(box);
      tr.appendChild(sw);
      var name = document.createElement("td");
      name.appendChild(text("div", (row.labels ? row.labels + " " : "") + row.name));
      name.appendChild(text("div", row.bot, "bot"));
      tr.appendChild(name);
      tr.appendChild(text("td", row.moves));
      tr.appendChild(text("td", row.verdict, "verdict"));
      var ms = row.time === null ? null : row.time * 1000;
      tr.appendChild(text("td", ms === null ? "" : ms.toFixed(ms < 10 ? 1 : 0) + " ms"));
      tr.appendChild(text("td", String(row.score)));
      var status = row.alive ? (row.cycles > 1 ? row.alive + "/" + row.cycles + " alive" : "alive") : row.fate;
      tr.appendChild(text("td", status, row.alive ? "" : "dead"));
      tbody.appendChild(tr);
    });
  }

  function setTurn(n) {
    n = Math.max(0, Math.min(D.last, Math.round(Number(n) || 0)));
    view.turn = n;
    draw();
    return n;
  }

  var lastFrame = 0, carry = 0, raf = 0;

  function loop(now) {
    if (!view.playing) { raf = 0; return; }
    if (lastFrame) {
      var dt = now - lastFrame;
      frameIntervals.push(dt);
      if (frameIntervals.length > 5000) frameIntervals.splice(0, 1000);
      carry += dt * view.speed / 1000;
      var steps = Math.floor(carry);
      if (steps > 0) {
        carry -= steps;
        view.turn = Math.min(D.last, view.turn + steps);
        if (view.turn >= D.last) view.playing = false;
        draw();
      }
    }
    lastFrame = now;
    raf = window.requestAnimationFrame(loop);
  }

  function play() {
    if (view.turn >= D.last) view.turn = 0;
    view.playing = true;
    lastFrame = 0; carry = 0;
    if (!raf) raf = window.requestAnimationFrame(loop);
    draw();
  }

  function pause() { view.playing = false; panel(); }

  function setSpeed(s) {
    view.speed = Math.max(0.1, Number(s) || 10);
    speedBox.value = String(view.speed);
    panel();
  }

  function stepSpeed(up) {
    var i = SPEEDS.indexOf(view.speed);
    if (i < 0) i = 3;
    setSpeed(SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + (up ? 1 : -1)))]);
  }

  function rotate(dx, dy) {
    view.yaw += dx;
    view.pitch = Math.max(-1.55, Math.min(1.55, view.pitch + dy));
    draw();
  }

  function zoom(f) {
    view.zoom = Math.max(0.3, Math.min(8, view.zoom * f));
    draw();
  }

  // -- what tests (and curious users in the console) can ask -----------------------------
  function kindAt(cell) {
    var t = view.turn, heads = D.heads[t], marks = D.marks[t], k;
    for (k = 0; k < heads.length; k++) {
      if (heads[k] === cell && marks[k] === 1) return { kind: "head", cycle: k, team: teamOf(k) };
    }
    for (k = 0; k < heads.length; k++) {
      if (heads[k] === cell && marks[k] === 2) return { kind: "dead", cycle: k, team: teamOf(k) };
    }
    var o = ownersAt(t)[cell];
    if (o >= 0) return { kind: "trail", cycle: o, team: teamOf(o) };
    if (wallSet[cell]) return { kind: "wall" };
    var items = itemsAt(t);
    for (k = 0; k < items.length; k++) if (items[k][0] === cell) return { kind: "item", item: items[k][1] };
    return { kind: "floor" };
  }

  function cellAt(x, y) {
    if (GRAPH) throw new Error("cellAt(x, y) is for grid boards; use nodeAt(node)");
    if (x < 0 || y < 0 || x >= B.width || y >= B.height) return null;
    return kindAt(y * B.width + x);
  }

  function nodeScreen(node) {
    // canvas pixel (device pixels) of a node's centre
    project();
    return [screen[node * 3] * layout.dpr, screen[node * 3 + 1] * layout.dpr];
  }

  function cellPixel(cell) {
    if (GRAPH) return nodeScreen(cell);
    var c = layout.cell;
    return [((cell % B.width) + 0.5) * c * layout.dpr, (Math.floor(cell / B.width) + 0.5) * c * layout.dpr];
  }

  var probe = null;

  function pixel(x, y) {
    // copy the one pixel to a scratch canvas made for reading, so the board's own
    // canvas is never read back (browsers slow down canvases that are)
    if (!probe) {
      var c = document.createElement("canvas");
      c.width = 1; c.height = 1;
      probe = c.getContext("2d", { willReadFrequently: true });
    }
    probe.clearRect(0, 0, 1, 1);
    probe.drawImage(canvas, Math.floor(x), Math.floor(y), 1, 1, 0, 0, 1, 1);
    var d = probe.getImageData(0, 0, 1, 1).data;
    return "#" + [d[0], d[1], d[2]].map(function (v) { return (v < 16 ? "0" : "") + v.toString(16); }).join("");
  }

  // -- input ----------------------------------------------------------------------------
  document.getElementById("first").onclick = function () { pause(); setTurn(0); };
  document.getElementById("prev").onclick = function () { pause(); setTurn(view.turn - 1); };
  document.getElementById("next").onclick = function () { pause(); setTurn(view.turn + 1); };
  document.getElementById("last").onclick = function () { pause(); setTurn(D.last); };
  playButton.onclick = function () { if (view.playing) pause(); else play(); };
  timeline.oninput = function () { pause(); setTurn(timeline.value); };
  speedBox.onchange = function () { setSpeed(speedBox.value); };

  document.addEventListener("keydown", function (e) {
    if (!D) return;
    if (e.target && e.target.tagName === "SELECT") return;
    var k = e.key, handled = true;
    if (k === " ") { if (view.playing) pause(); else play(); }
    else if (k === "ArrowRight" || k === "l") { pause(); setTurn(view.turn + 1); }
    else if (k === "ArrowLeft" || k === "h") { pause(); setTurn(view.turn - 1); }
    else if (k === "Home" || k === "0") { pause(); setTurn(0); }
    else if (k === "End" || k === "$") { pause(); setTurn(D.last); }
    else if (k === "+" || k === "=") stepSpeed(true);
    else if (k === "-" || k === "_") stepSpeed(false);
    else if (k === "r" && GRAPH) { view.yaw = 0.6; view.pitch = 0.45; view.zoom = 1; draw(); }
    else handled = false;
    if (handled) e.preventDefault();
  });

  function graphInput() {
    canvas.className = "graph";
    document.getElementById("hint").textContent = "drag to turn · wheel to zoom · r to reset";
    var drag = null;
    canvas.addEventListener("pointerdown", function (e) {
      drag = [e.clientX, e.clientY];
      canvas.setPointerCapture(e.pointerId);
      canvas.classList.add("dragging");
    });
    canvas.addEventListener("pointermove", function (e) {
      if (!drag) return;
      var dx = e.clientX - drag[0], dy = e.clientY - drag[1];
      drag = [e.clientX, e.clientY];
      rotate(dx * 0.01, dy * 0.01);
    });
    var stop = function () { drag = null; canvas.classList.remove("dragging"); };
    canvas.addEventListener("pointerup", stop);
    canvas.addEventListener("pointercancel", stop);
    canvas.addEventListener("wheel", function (e) {
      e.preventDefault();
      zoom(Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
  }

  window.addEventListener("resize", function () { if (D) resize(); });

  // -- live mode ----------------------------------------------------------------------------
  var liveBox = document.getElementById("live");

  function liveStatus(state, words) {
    live.state = state;
    if (liveBox) { liveBox.textContent = words; liveBox.className = state; }
  }

  function indexTrails() {
    live.open = {};
    D.trails.forEach(function (t, i) { if (t[3] === null) live.open[t[1] + ":" + t[0]] = i; });
  }

  function appendTurn(f) {
    var following = !view.playing && view.turn === D.last;
    var n = f.turn;
    D.heads.push(f.heads);
    D.marks.push(f.marks);
    D.rows.push(f.rows);
    if (f.items) {
      if (!D.items) { D.items = []; for (var i = 0; i < n; i++) D.items.push([]); }
      D.items.push(f.items);
    } else if (D.items) {
      D.items.push([]);
    }
    f.open.forEach(function (p) {
      live.open[p[1] + ":" + p[0]] = D.trails.length;
      D.trails.push([p[0], p[1], n, null]);
    });
    f.close.forEach(function (p) {
      var key = p[1] + ":" + p[0], at = live.open[key];
      if (at !== undefined) { D.trails[at][3] = n; delete live.open[key]; }
    });
    D.last = n;
    ownerTurn = -1;
    timeline.max = String(D.last);
    if (following) setTurn(D.last); else panel();
  }

  function endGame(f) {
    liveStatus("ended", "");
    var heading = document.getElementById("title").textContent;
    showTitle(heading.replace(/ · live$/, " · ended").replace(/^live game\b/, "game"));
    if (!D && !f.data) {
      var result = document.getElementById("result");
      result.textContent = f.result;
      result.className = "final";
      return;
    }
    var following = !D || (!view.playing && view.turn === D.last);
    if (f.data) {
      if (!D) { setup(f.data); resize(); } else { D = f.data; ownerTurn = -1; }
      timeline.max = String(D.last);
    }
    D.result = f.result;
    if (following) setTurn(D.last); else panel();
    if (BOOT.live.follow) followNext(f.game);
  }

  function followNext(done) {
    // a local match's page goes on to the next game once it starts: the server says
    // which on a websocket (the page makes no other kind of request)
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + BOOT.live.next);
    socket.onmessage = function (e) {
      var f = JSON.parse(e.data);
      if (f.type === "next" && f.id !== done) {
        window.location.assign(BOOT.live.page + encodeURIComponent(f.id) + "?follow=1");
      }
    };
  }

  function connect(opts) {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + opts.ws);
    liveStatus("connecting", "connecting…");
    socket.onopen = function () { liveStatus("live", "● live"); };
    socket.onmessage = function (e) {
      var f = JSON.parse(e.data);
      if (f.type === "start") {
        if (D) return;
        setup(f.data);
        indexTrails();
        view.turn = D.last;
        resize();
        window.lightcycle.ready = true;
      } else if (f.type === "turn" && D) {
        appendTurn(f);
      } else if (f.type === "end") {
        endGame(f);
        window.lightcycle.ready = true;
      }
    };
    socket.onclose = function () {
      if (live.state !== "ended") liveStatus("lost", "connection lost: reload the page to try again");
    };
    live.socket = socket;
  }

  window.lightcycle = {
    get turn() { return view.turn; },
    get playing() { return view.playing; },
    get speed() { return view.speed; },
    get view() { return { yaw: view.yaw, pitch: view.pitch, zoom: view.zoom }; },
    get last() { return D ? D.last : -1; },
    get board() { return B ? B.kind : null; },
    get data() { return D; },
    get live() { return live.on ? live.state : null; },
    setTurn: setTurn,
    play: play,
    pause: pause,
    setSpeed: setSpeed,
    rotate: rotate,
    zoom: zoom,
    cellAt: cellAt,
    nodeAt: function (node) { return kindAt(node); },
    cellPixel: cellPixel,
    headPixel: function (cycle) { return cellPixel(D.heads[view.turn][cycle]); },
    closeSocket: function () { if (live.socket) live.socket.close(); },
    pixel: pixel,
    frameTimes: frameTimes,
    frameIntervals: frameIntervals,
    ready: false
  };

  if (live.on) {
    connect(BOOT.live);
  } else {
    setup(BOOT);
    view.turn = Math.max(0, Math.min(D.last, Number(document.body.dataset.start) || 0));
    resize();
    window.lightcycle.ready = true;
  }
})();
