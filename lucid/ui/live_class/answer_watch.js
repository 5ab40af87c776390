// The teacher's answer count, pushed (lucid.ui.live_class.room_watch.answer_watch): a read the server holds until
// this room took another answer (lucid.live_class.feed_push), answered with the open round's count. The numbers go
// into the panel's count ("3 / 20") at once, with no script run in between; then the teacher's question fragment
// runs again, once per draw of this watcher (who has not answered, the histogram while peeking), and draws this
// watcher again with the new count. Each read names the room's teacher key in a header (data.key: drawn only on
// the teacher's page); the server refuses a read without it. Without the server's held reads the panel keeps its
// own refresh timer, and this watcher stops at the first answer it cannot read.
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let live = true;
  let asked = false;
  const abort = new AbortController();
  // The count's bold words in the page's language (data.words, with {answered} and {students}), written into the
  // text the panel's run drew: the same text node, so the run's next draw replaces it as usual.
  const show = (got) => {
    if (!data.words || got.q !== data.q || !Number.isInteger(got.answered) || !Number.isInteger(got.students)
        || got.answered < Number(data.answered || 0)) {
      return;  // another round's count, none, or fewer than this run drew (a count only grows)
    }
    const bold = document.querySelector(data.count)?.querySelector('[data-testid="stMarkdownContainer"] strong');
    const text = bold && bold.childNodes.length === 1 ? bold.firstChild : null;
    if (!text || text.nodeType !== Node.TEXT_NODE) return;
    text.nodeValue = String(data.words).replace('{answered}', String(got.answered))
      .replace('{students}', String(got.students));
  };
  // The newest count read, kept on the watcher's element across the panel's runs: a run that read the answers
  // before the last of them came draws fewer than the teacher already saw, and this puts the newer count back.
  const kept = parentElement.lucidAnswers;
  if (kept && Number(kept.answers) > Number(data.seen)) show(kept);
  const read = async () => {
    let seen = data.seen;
    while (live) {
      try {
        const r = await fetch(`${data.feed}?answers=${encodeURIComponent(seen)}`,
                              { cache: 'no-store', signal: abort.signal, headers: { [data.header]: data.key } });
        if (!r.ok) return;  // refused (no longer this room's key) or gone: the panel's timer goes on
        const got = await r.json();
        if (got.answers === undefined) return;  // the static file answered: no held reads on this server
        if (String(got.answers) === String(seen)) continue;  // held the whole time: nothing new
        seen = got.answers;
        parentElement.lucidAnswers = got;
        show(got);
        if (!asked) {
          asked = true;
          setTriggerValue('answers', got.answers);
        }
      } catch (e) {
        if (!live) return;
        await new Promise((done) => setTimeout(done, 1000));  // offline or restarting: try again shortly
      }
    }
  };
  if (data.feed && data.key) read();
  return () => { live = false; abort.abort(); };
}
