// jitfish board: the page. It holds no rules: the server sends the position, the legal moves and
// what each move changed; the page draws them and sends clicks back as coordinate moves.
"use strict";
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
window.jitfishLog = [];
let dragFrom = null;
let ws = null, st = null, sel = null, flipped = false, lastInfo = null, clockBase = null;
const FILES = "abcdefghijklmnop";

function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }
function setError(text) { $("error").textContent = text || ""; }

function setupMessage() {
  const m = { type: "setup" };
  for (const k of ["variant", "fen", "engine", "color", "movetime", "depth", "tc", "pgn", "game", "watch"]) {
    if (params.has(k) && params.get(k) !== "") m[k] = params.get(k);
  }
  const pasted = sessionStorage.getItem("jitfish-pgn");
  if (params.get("pasted") === "1" && pasted) m.pgn_text = pasted;
  return m;
}

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => send(setupMessage());
  ws.onmessage = (e) => handle(JSON.parse(e.data));
  ws.onclose = () => setError("the connection to the board server is closed: reload the page when it runs again");
}

function handle(msg) {
  if (msg.type === "state") {
    const first = !st || st.variant.name !== msg.variant.name;
    st = msg; sel = null;
    window.jitfishLog.push({ fen: msg.fen, t: performance.now(), thinking: msg.thinking });  // for scripts: every position shown
    if (first && params.get("color") === "black" && msg.mode === "play" && !params.has("flip")) flipped = true;
    if (msg.type === "state" && !msg.thinking) lastInfo = lastInfo && msg.moves.length ? lastInfo : null;
    clockBase = { clock: msg.clock, at: performance.now() };
    setError(msg.engine_error || "");
    $("notice").textContent = msg.notice || "";
    render();
  } else if (msg.type === "info") {
    lastInfo = msg; renderAnalysis();
  } else if (msg.type === "error") {
    setError(msg.message);
    if (!st) { $("fen").textContent = ""; drawEmpty(); $("setup-box").open = true; }
    sel = null; if (st) render();
  } else if (msg.type === "waiting") {
    $("notice").textContent = msg.message; setTimeout(() => send(setupMessage()), 1000);
  } else if (msg.type === "pgn") {
    $("pgn").value = msg.text;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([msg.text], { type: "application/x-chess-pgn" }));
    a.download = msg.filename; document.body.appendChild(a); a.click(); a.remove();
  }
}

// -- pieces ------------------------------------------------------------------------------------
function pieceInfo(letter) { return st.variant.pieces.find((p) => p.letter === letter.toUpperCase()); }
function pieceElement(letter, size) {
  const info = pieceInfo(letter) || { name: letter, betza: "?", words: "", picture: "" };
  const colour = letter === letter.toUpperCase() ? "white" : "black";
  const tip = `${colour === "white" ? "White" : "Black"} ${info.name} (${info.letter || letter}): ${info.betza}` +
    (info.words ? ` \u2014 ${info.words}` : "");
  let el;
  if (info.picture) {
    el = document.createElement("img");
    el.src = `/piece/${colour}/${info.picture}.svg`; el.alt = `${colour} ${info.name}`;
  } else {
    el = document.createElement("div"); el.className = `fallback ${colour}`;
    const s = document.createElement("span"); s.textContent = letter.toUpperCase(); el.appendChild(s);
  }
  el.title = tip;
  el.dataset.letter = letter;
  return el;
}

// -- board -------------------------------------------------------------------------------------
function squareSize(files) { return files > 10 ? 52 : files > 8 ? 58 : 64; }
function drawEmpty() { $("board").innerHTML = ""; }

function render() {
  const v = st.variant, F = v.files, R = v.ranks, b = $("board");
  b.style.setProperty("--sq", squareSize(F) + "px");
  b.style.gridTemplateColumns = `18px repeat(${F}, var(--sq))`;
  b.innerHTML = "";
  const last = st.ply > 0 ? st.last : null;
  const dests = sel ? (st.legal[sel] || []).map((d) => d[0]) : [];
  const conv = last ? last.converted : [];
  for (let row = 0; row < R; row++) {
    const r = flipped ? row : R - 1 - row;
    const lab = document.createElement("div"); lab.className = "coord"; lab.textContent = r + 1; b.appendChild(lab);
    for (let col = 0; col < F; col++) {
      const f = flipped ? F - 1 - col : col, name = FILES[f] + (r + 1);
      const sq = document.createElement("div");
      sq.className = "sq " + ((f + r) % 2 ? "light" : "dark");
      sq.dataset.square = name;
      const p = st.board[name];
      if (p) { sq.appendChild(pieceElement(p)); sq.classList.add("occupied"); }
      if (last && (last.from === name || last.to === name)) sq.classList.add("last");
      if (sel === name) sq.classList.add("sel");
      if (dests.includes(name)) sq.classList.add("dest");
      if (st.check === name) sq.classList.add("check");
      if (conv.includes(name)) { sq.classList.add("converted"); badge(sq, "\u21c4"); }
      if (last && last.promoted && last.to === name) { sq.classList.add("promoted"); badge(sq, "\u2191"); }
      sq.addEventListener("click", () => clickSquare(name));
      // drag: press on the origin, release on the destination (a plain click is handled above)
      sq.addEventListener("mousedown", () => { dragFrom = name; });
      sq.addEventListener("mouseup", () => {
        const from = dragFrom; dragFrom = null;
        if (!from || from === name) return;
        if (sel !== from) { sel = null; clickSquare(from); }
        if (sel === from) clickSquare(name);
      });
      b.appendChild(sq);
    }
  }
  b.appendChild(document.createElement("div"));
  for (let col = 0; col < F; col++) {
    const c = document.createElement("div"); c.className = "coord"; c.textContent = FILES[flipped ? F - 1 - col : col];
    b.appendChild(c);
  }
  $("fen").textContent = st.fen;
  if (!window.jitfishFirstPaint) window.jitfishFirstPaint = performance.now();  // ms since navigation
  $("result").textContent = st.result ? `${st.result[0]} ${st.result[1]}` : "";
  $("title").textContent = `${v.name} \u2014 ${v.description}`;
  const names = st.names, tm = st.result ? -1 : st.turn;
  const top = flipped ? 0 : 1, bottom = 1 - top;
  for (const [id, c] of [["player-top", top], ["player-bottom", bottom]]) {
    $(id).className = "player" + (tm === c ? " tomove" : "");
    $(id).dataset.colour = c;
    $(id).textContent = `${c ? "Black" : "White"}: ${names[c]}` + extinctionCount(c);
  }
  renderClocks();
  const who = st.players[st.turn];
  $("status").textContent = st.mode === "watch" ? `watching a match game${st.watching === "latest" ? " (the newest)" : ""}`
    : st.mode === "replay" ? `replay: ply ${st.ply} of ${st.moves.length}`
    : st.result ? "game over" : st.thinking ? `${who} is thinking\u2026` : `${st.turn ? "Black" : "White"} to move`;
  $("changes").textContent = last ? describeChanges(last) : "";
  $("go").disabled = st.mode !== "play" || !!st.result || st.thinking;
  renderMoves(); renderAnalysis(); renderLegend();
}

function extinctionCount(colour) {
  // Cows and Butterflies: how many Aces each side has left (counted from the board the server sent)
  const ex = st.variant.extinction; if (!ex || st.variant.conversion) return "";
  let n = 0;
  for (const p of Object.values(st.board)) if (ex.includes(p.toUpperCase()) && (p === p.toUpperCase()) === !colour) n++;
  return ` \u2014 ${ex.split("").map((l) => (pieceInfo(l) || {}).name || l).join("/")}s left: ${n}`;
}

function badge(sq, text) { const s = document.createElement("span"); s.className = "badge"; s.textContent = text; sq.appendChild(s); }

function describeChanges(c) {
  const parts = [];
  const mv = st.moves[st.ply - 1];
  if (c.promoted) parts.push(`promoted to ${c.promoted} on ${c.to}`);
  if (c.converted.length) parts.push(`converted ${c.converted.map((s) => `the ${(pieceInfo(st.board[s]) || {}).name || "piece"} on ${s}`).join(", ")}`);
  if (c.captured.length) parts.push(`captured ${c.captured.map((n) => `${c.mover ? "White" : "Black"}'s ${n}`).join(", ")}`);
  return parts.length ? `${mv ? mv.san : ""}: ${parts.join("; ")}` : "";
}

function renderMoves() {
  const ol = $("moves"); ol.innerHTML = "";
  let li = null, n = st.fullmove;
  st.moves.forEach((m, i) => {
    const black = (i + st.start_turn) % 2 === 1;
    if (!li || !black) { li = document.createElement("li"); li.value = n; ol.appendChild(li); if (black) li.appendChild(document.createTextNode("\u2026 ")); }
    const s = document.createElement("span"); s.textContent = m.san; s.title = m.name + (m.comment ? ` {${m.comment}}` : "");
    if (i + 1 === st.ply) { s.className = "cur"; setTimeout(() => s.scrollIntoView({ block: "nearest" }), 0); }
    s.addEventListener("click", () => send({ type: "goto", ply: i + 1 }));
    li.appendChild(s);
    if (black) n++;
  });
}

function renderAnalysis() {
  const a = $("analysis");
  if (!lastInfo && st && st.mode !== "play" && st.ply > 0 && st.moves[st.ply - 1].comment) {
    a.textContent = `${st.moves[st.ply - 1].san} {${st.moves[st.ply - 1].comment}}`; return;
  }
  if (!lastInfo) { a.textContent = st && st.thinking ? "thinking\u2026" : "analysis: an engine's score, depth, nodes and line show here while it thinks"; return; }
  const i = lastInfo, sign = i.turn ? -1 : 1;
  const score = i.mate != null ? `mate in ${Math.abs(i.mate)} for ${(i.mate > 0) === !i.turn ? "White" : "Black"}`
    : i.score_cp != null ? `${(sign * i.score_cp / 100 >= 0 ? "+" : "")}${(sign * i.score_cp / 100).toFixed(2)} (White's view)` : "?";
  a.textContent = `score ${score}  depth ${i.depth ?? "?"}  nodes ${i.nodes ?? "?"}\nPV ${i.pv.join(" ")}`;
  a.style.whiteSpace = "pre-wrap";
}

function renderLegend() {
  const l = $("legend"); if (l.dataset.variant === st.variant.name) return;
  l.dataset.variant = st.variant.name; l.innerHTML = "";
  for (const p of st.variant.pieces) {
    l.appendChild(pieceElement(p.letter)); l.appendChild(pieceElement(p.letter.toLowerCase()));
    const d = document.createElement("div");
    d.textContent = `${p.letter} ${p.name} \u2014 ${p.betza}: ${p.words}` + (st.variant.conversion === p.letter ? "; converts the enemy pieces it attacks after it moves" : "");
    l.appendChild(d);
  }
}

function renderClocks() {
  if (!st || !clockBase || !clockBase.clock) return;
  const el = performance.now() - clockBase.at;
  for (const id of ["player-top", "player-bottom"]) {
    const c = +$(id).dataset.colour; let t = clockBase.clock[c];
    if (!st.result && st.turn === c && st.mode === "play") t -= el / 1000;
    t = Math.max(0, t);
    const txt = `${Math.floor(t / 60)}:${String(Math.floor(t % 60)).padStart(2, "0")}.${Math.floor((t * 10) % 10)}`;
    $(id).textContent = `${c ? "Black" : "White"}: ${st.names[c]}${extinctionCount(c)}  \u23F1 ${txt}`;
  }
}
setInterval(renderClocks, 200);

// -- moves -------------------------------------------------------------------------------------
function clickSquare(name) {
  if (!st) return;
  setError("");
  if (sel) {
    if (name === sel) { sel = null; render(); return; }
    const here = (st.legal[sel] || []).filter((d) => d[0] === name);
    if (here.length) {
      const promos = here.map((d) => d[1]).filter((x) => x);
      const from = sel; sel = null;
      if (promos.length) { render(); askPromotion(from, name, promos); return; }
      send({ type: "move", move: from + name }); render(); return;
    }
    if ((st.legal[name] || []).length) { sel = name; render(); return; }
    const from = sel; sel = null; render();
    send({ type: "move", move: from + name });  // the server says why not
    return;
  }
  if (st.board[name]) { sel = name; render(); } else { setError(`no piece on ${name}`); }
}

function askPromotion(from, to, letters) {
  const box = $("promotion-choices"); box.innerHTML = "";
  for (const l of letters) {
    const b = document.createElement("button"); b.dataset.piece = l;
    const letter = st.turn ? l.toLowerCase() : l.toUpperCase();
    b.appendChild(pieceElement(letter)); b.appendChild(document.createTextNode((pieceInfo(l) || {}).name || l));
    b.addEventListener("click", () => { $("promotion").hidden = true; send({ type: "move", move: from + to + l }); });
    box.appendChild(b);
  }
  $("promotion").hidden = false;
}
$("promotion-cancel").addEventListener("click", () => { $("promotion").hidden = true; });

// -- buttons -----------------------------------------------------------------------------------
function step(d) { if (st) send({ type: "goto", ply: Math.max(0, Math.min(st.moves.length, st.ply + d)) }); }
$("first").onclick = () => send({ type: "goto", ply: 0 });
$("prev").onclick = () => step(-1);
$("next").onclick = () => step(1);
$("last").onclick = () => st && send({ type: "goto", ply: st.moves.length });
$("flip").onclick = () => { flipped = !flipped; if (st) render(); };
$("undo").onclick = () => send({ type: "undo" });
$("go").onclick = () => send({ type: "go" });
$("download").onclick = () => send({ type: "pgn" });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
  if (e.key === "ArrowLeft") step(-1); else if (e.key === "ArrowRight") step(1);
  else if (e.key === "Home") send({ type: "goto", ply: 0 }); else if (e.key === "End" && st) send({ type: "goto", ply: st.moves.length });
  else if (e.key === "f") $("flip").click();
});
$("setup").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("setup"))) if (v !== "") q.set(k, v);
  if (!q.get("engine")) q.delete("color");
  location.search = q.toString();
});
$("s-replay").addEventListener("change", (e) => {
  const [i, j] = e.target.value.split(":"); if (i !== undefined && j !== undefined) location.search = `pgn=${i}&game=${j}`;
});
$("s-pgn-go").addEventListener("click", () => {
  sessionStorage.setItem("jitfish-pgn", $("s-pgn-text").value); location.search = "pasted=1";
});

fetch("/api/info").then((r) => r.json()).then((info) => {
  const vs = $("s-variant");
  for (const v of info.variants) { const o = document.createElement("option"); o.textContent = v; vs.appendChild(o); }
  if (params.get("variant")) vs.value = params.get("variant");
  const es = $("s-engine");
  for (const e of info.engines) { const o = document.createElement("option"); o.value = e; o.textContent = e; es.appendChild(o); }
  const rs = $("s-replay");
  for (const f of info.pgn) f.games.forEach((g, j) => {
    const o = document.createElement("option"); o.value = `${f.index}:${j}`;
    o.textContent = `${f.file.split("/").pop()} #${j + 1}: ${g.white} - ${g.black} ${g.result} (${g.variant})`; rs.appendChild(o);
  });
});
connect();
