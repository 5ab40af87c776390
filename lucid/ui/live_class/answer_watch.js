// The teacher's answer count, pushed (lucid.ui.live_class.room_watch.answer_watch): a read the server holds until
// this room took another answer (lucid.live_class.feed_push), then a rerun of the teacher's question fragment,
// whose run draws this watcher again with the new count. Without the server's held reads the panel keeps its own
// refresh timer, and this watcher stops at the first answer it cannot read.
export default function(component) {
  const { data, setTriggerValue } = component;
  let live = true;
  const abort = new AbortController();
  const read = async (seen) => {
    while (live) {
      try {
        const r = await fetch(`${data.feed}?answers=${encodeURIComponent(seen)}`,
                              { cache: 'no-store', signal: abort.signal });
        if (!r.ok) return;
        const got = (await r.json()).answers;
        if (got === undefined) return;  // the static file answered: no held reads on this server
        if (String(got) !== String(seen)) { setTriggerValue('answers', got); return; }
      } catch (e) {
        if (!live) return;
        await new Promise((done) => setTimeout(done, 1000));  // offline or restarting: try again shortly
      }
    }
  };
  if (data.feed) read(data.seen);
  return () => { live = false; abort.abort(); };
}
