// SLB Explorer's live slider: an <input type=range> over the positions 0..n of a value list that
// reports its position to Streamlit WHILE it is dragged (st.slider reports only on release).
//
// A Streamlit Components v2 module (st.components.v2.component: inline HTML/CSS/JS, no iframe,
// no build step, nothing fetched from the network).  Streamlit calls the default export on
// mount and again whenever the Python side sends new data; the HTML stays mounted in between,
// so the per-instance state lives on the root element.  Received text is set with textContent
// only (never parsed as HTML).
//
// data (from Python): {label, help, index, n, text: [n + 1 strings], count: [n + 1 numbers],
//                      count_text}: position k shows "text[k] · count[k] count_text".
// state (to Python):  setStateValue("pick", {index, seq}); seq makes every report a change.
//
// Flow control while dragging: a position is sent at most once per MIN_MS, and only after the
// server has echoed the previous one back (data.index): the Python side draws this component
// after the figures the value moves, so the echo means "figures drawn for that value".  Release
// (or a key press) sends the final position at once.

const MIN_MS = 150; // at most one position per 150 ms while dragging
const ECHO_WAIT_MS = 4000; // give up waiting for an echo after this (a lost rerun)

function instance(root) {
  const s = {
    root,
    range: root.querySelector(".range"),
    out: root.querySelector(".out"),
    lab: root.querySelector(".lab"),
    lo: root.querySelector(".lo"),
    hi: root.querySelector(".hi"),
    data: { n: 1, text: [], count: [], count_text: "" },
    setStateValue: null,
    attached: false,
    dragging: false, // pointer held on the slider
    lastSent: null, // position last reported to Streamlit
    lastSentAt: 0, // performance.now() of that report
    awaiting: null, // position sent and not yet echoed by a render
    timer: null,
    seq: 0,
    listeners: [],
  };
  return s;
}

function idx(s) {
  const k = Math.round(Number(s.range.value));
  return Math.min(Math.max(k, 0), s.data.n);
}

function textAt(s, k) {
  const t = s.data.text[k];
  const c = s.data.count[k];
  const head = t === undefined ? String(k) : String(t);
  return c === undefined ? head : `${head} · ${c} ${s.data.count_text || ""}`.trim();
}

function show(s) {
  const text = textAt(s, idx(s));
  s.out.textContent = text;
  s.range.setAttribute("aria-valuetext", text);
  s.range.dataset.value = String(s.data.text[idx(s)] ?? "");
  s.range.dataset.count = String(s.data.count[idx(s)] ?? "");
}

function send(s) {
  clearTimeout(s.timer);
  s.timer = null;
  const k = idx(s);
  if (k === s.lastSent || !s.setStateValue) return;
  s.lastSent = k;
  s.lastSentAt = performance.now();
  s.awaiting = k;
  s.seq += 1;
  s.setStateValue("pick", { index: k, seq: Date.now() * 1000 + (s.seq % 1000) });
}

// while dragging: send when MIN_MS have passed and the previous position came back
function pump(s) {
  clearTimeout(s.timer);
  s.timer = null;
  const k = idx(s);
  if (k === s.lastSent) return;
  const now = performance.now();
  const waitEcho = s.awaiting !== null && now - s.lastSentAt < ECHO_WAIT_MS;
  const wait = Math.max(MIN_MS - (now - s.lastSentAt), 0);
  if (!waitEcho && wait === 0) {
    send(s);
    return;
  }
  s.timer = setTimeout(() => pump(s), waitEcho ? Math.max(wait, 40) : wait);
}

// The echo arrives once the server has sent the figures, but the browser may still be drawing
// them: a painted frame afterwards means it is done.
function afterPaint(s, k) {
  let done = false;
  const clear = () => {
    if (done) return;
    done = true;
    if (s.awaiting === k) s.awaiting = null;
    if (s.dragging) pump(s);
  };
  requestAnimationFrame(() => requestAnimationFrame(clear));
  setTimeout(clear, 500); // a hidden tab gets no animation frames
}

function attach(s) {
  const on = (target, type, fn) => {
    target.addEventListener(type, fn);
    s.listeners.push([target, type, fn]);
  };
  const release = () => {
    if (!s.dragging) return;
    s.dragging = false;
    if (idx(s) !== s.lastSent) send(s);
  };
  on(s.range, "pointerdown", () => {
    s.dragging = true;
  });
  on(window, "pointerup", release);
  on(window, "pointercancel", release);
  on(s.range, "input", () => {
    show(s);
    if (s.dragging) pump(s);
  });
  // "change": the end of a drag (if no pointerup reached us) or a key press: report at once
  on(s.range, "change", () => {
    s.dragging = false;
    send(s);
  });
  on(s.range, "keydown", (e) => {
    // PageUp/PageDown move a tenth of the range, as Streamlit's own slider does
    const big = Math.max(1, Math.round(s.data.n / 10));
    const step = e.key === "PageUp" ? big : e.key === "PageDown" ? -big : 0;
    if (!step) return;
    e.preventDefault();
    s.range.value = String(Math.min(Math.max(idx(s) + step, 0), s.data.n));
    show(s);
    send(s);
  });
  s.attached = true;
}

function detach(s) {
  for (const [target, type, fn] of s.listeners) target.removeEventListener(type, fn);
  s.listeners = [];
  s.attached = false;
  clearTimeout(s.timer);
  s.timer = null;
}

function render(s, data) {
  const n = Math.max(1, Number(data.n) || 1);
  s.data = {
    n,
    text: Array.isArray(data.text) ? data.text : [],
    count: Array.isArray(data.count) ? data.count : [],
    count_text: String(data.count_text || ""),
  };
  s.lab.textContent = String(data.label || "");
  if (data.help) s.range.title = String(data.help);
  else s.range.removeAttribute("title");
  s.range.min = "0";
  s.range.max = String(n);
  s.range.step = "1";
  s.range.disabled = Boolean(data.disabled);
  s.lo.textContent = String(s.data.text[0] ?? "");
  s.hi.textContent = String(s.data.text[n] ?? "");
  const k = Math.min(Math.max(Math.round(Number(data.index) || 0), 0), n);
  const echoed = s.awaiting !== null && k === s.awaiting; // our position came back
  if (echoed) afterPaint(s, k);
  const stale =
    s.awaiting !== null && !echoed && performance.now() - s.lastSentAt < ECHO_WAIT_MS;
  if (!s.dragging && !stale && k !== idx(s)) {
    s.range.value = String(k); // set by the server
    s.lastSent = k;
  }
  if (s.lastSent === null) {
    s.range.value = String(k);
    s.lastSent = k;
  }
  show(s);
  if (s.dragging) pump(s);
}

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const root = parentElement.querySelector(".slb-live");
  if (!root) return undefined;
  if (!root.__slbLive) root.__slbLive = instance(root);
  const s = root.__slbLive;
  s.setStateValue = setStateValue;
  if (!s.attached) attach(s);
  render(s, data || {});
  // Streamlit calls this when the component is unmounted; a later call attaches again
  return () => detach(s);
}
