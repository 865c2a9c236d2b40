// SLB Explorer's restart watch: a tab left open while the server restarts reruns by itself.
//
// After a restart Streamlit's frontend reconnects to the new server but keeps showing the old
// page (the old upload, the old figures) until the user touches a widget.  This module polls
// the server's health endpoint; once it has seen the server down and then up again, it reports
// a new value, which makes the frontend rerun the page in the new server's session: that run
// reads the settings from the address and says that the server restarted
// (dashboard/urlstate.py).  It stops when a run has redrawn it (data.run changed) or after
// MAX_TRIES reports (after a network outage with the same server: one harmless rerun).
//
// A Streamlit Components v2 module (inline, no iframe, nothing fetched but the health check of
// the app's own server).  Nothing received is ever inserted as HTML.

const POLL_MS = 1000; // a restart takes seconds (the imports alone): never missed
const MAX_TRIES = 60; // a minute of reports at most after the server is back

async function poll(s) {
  let ok = false;
  try {
    const url = new URL("_stcore/health", document.baseURI);
    ok = (await fetch(url, { cache: "no-store" })).ok;
  } catch (e) {
    ok = false;
  }
  if (!ok) {
    if (!s.down) {
      s.down = true;
      s.runWhenDown = s.run;
      s.tries = 0;
    }
    return;
  }
  if (!s.down) return;
  if (s.run !== s.runWhenDown || s.tries >= MAX_TRIES) {
    s.down = false; // a run has redrawn the page (or we gave up)
    return;
  }
  s.tries += 1;
  s.seq += 1;
  if (s.setStateValue) s.setStateValue("ping", s.seq);
}

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const root = parentElement.querySelector(".slb-watch");
  if (!root) return undefined;
  if (!root.__slbWatch) {
    root.__slbWatch = { down: false, tries: 0, seq: 0, run: null, runWhenDown: null, timer: null };
  }
  const s = root.__slbWatch;
  s.setStateValue = setStateValue;
  s.run = data && data.run !== undefined ? String(data.run) : null;
  if (!s.timer) s.timer = setInterval(() => poll(s), POLL_MS);
  return () => {
    clearInterval(s.timer);
    s.timer = null;
  };
}
