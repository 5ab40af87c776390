// The class panel's watcher (lucid.ui.live_class.room_watch): takes the question the player read
// (room_events.js, which starts this module), shows its card at once (the question asked, or its answer once
// revealed: no server run needed) and reruns the class panel's fragment, whose run draws the form or the verdict
// and this watcher again with that question (data.question), which hides the card.
//
// It also keeps the student's one live region (role=status, read by screen readers, not shown): a new question,
// its reveal, "answer received" (data.announce, from the panel's run) and the class's connection (the player's
// data-room-state: lost, back again, ended) are said there, each once (WCAG 4.1.3). The region outlives the
// fragment's reruns, so a screen reader hears what changes in it. The card itself is only a picture of the same.
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let sent = null;
  let card = parentElement.querySelector('.lucid-room-card');
  if (!card) {
    card = document.createElement('div');
    card.className = 'lucid-room-card';
    card.setAttribute('aria-hidden', 'true');  // the live region below says it: not twice
    parentElement.appendChild(card);
  }
  let live = parentElement.querySelector('.lucid-room-live');
  if (!live) {
    live = document.createElement('div');
    live.className = 'lucid-room-live';
    live.setAttribute('role', 'status');
    live.setAttribute('aria-live', 'polite');
    live.setAttribute('aria-atomic', 'true');
    parentElement.appendChild(live);
  }
  const words = data.words || {};
  const fill = (text, info) => String(text || '').replace('{label}', String(info && info.label || ''))
    .replace('{step}', String(info && info.step || '')).replace('{answer}', String(info && info.answer || ''));
  const say = (key, text) => {
    // Said once per key (a question opened, revealed, an answer sent): a rerun that draws it again is silent.
    if (!text || live.dataset.said === key) return;
    live.dataset.said = key;
    live.textContent = '';
    // A new text in a region that is already there is what a screen reader announces; emptied first, a repeat
    // of the same words (a second answer of the same value) is announced too.
    setTimeout(() => { live.textContent = text; live.dataset.text = text; }, 60);
  };
  const show = (q, info) => {
    // Our own words with the card's label and numbers put in as text (never as HTML).
    const open = q && info && q === sent && q !== data.question;
    card.textContent = !open ? '' : fill(info.answer !== undefined ? words.revealed : words.asked, info);
    card.hidden = !card.textContent;
    if (open) say(`q:${q}`, card.textContent);
  };
  const fire = (q, info) => {
    if (q === undefined || q === data.question) { show(null); return; }
    if (q !== sent) {
      sent = q;
      setTriggerValue('question', q);
    }
    show(q, info);
  };
  const take = (event) => {
    event.detail.taken = true;
    fire(event.detail.q, event.detail.card);
  };
  window.addEventListener(ROOM_QUESTION, take);
  const last = roomLastQuestion();  // a change the player read before this watcher was drawn
  fire(last.q, last.card);
  if (data.announce) say(data.announce.key, data.announce.text);

  // The connection, as the student's player knows it (lucid.viz.player: data-room-state live, lost or ended).
  const connection = () => {
    const state = document.querySelector('.lucid-player[data-room-state]')?.dataset.roomState || 'live';
    const before = parentElement.dataset.roomState || 'live';
    if (state === before) return;
    parentElement.dataset.roomState = state;
    const text = state === 'lost' ? words.lost : state === 'ended' ? words.ended : before === 'lost' ? words.back : '';
    say(`room:${state}:${Date.now()}`, text);
  };
  skipLink(data.form, words.skip);
  const watch = new MutationObserver(connection);
  watch.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-room-state'] });
  connection();
  return () => {
    window.removeEventListener(ROOM_QUESTION, take);
    watch.disconnect();
    // The page left the class (another page, the class over): its skip link goes too.
    setTimeout(() => { if (!parentElement.isConnected) skipLink(null); }, 0);
  };
}

// While a question's answer form is on the page (data.form: its selector), the page's first Tab stop is a link
// to it ("Skip to the answer field", shown when focused): a keyboard or screen-reader student reaches the answer
// with one Tab and Enter instead of Tabbing through the whole Playground first.
function skipLink(form, text) {
  let link = document.querySelector('body > a.lucid-skip-answer');
  if (!form || !text) { if (link) link.remove(); return; }
  if (!link) {
    link = document.createElement('a');
    link.className = 'lucid-skip-answer';
    link.href = '#';
    document.body.prepend(link);  // before Streamlit's root: React never touches it
  }
  link.textContent = text;
  link.onclick = (event) => {
    event.preventDefault();
    const field = document.querySelector(form)?.querySelector('input:not([type=hidden]), textarea');
    if (!field) return;
    field.scrollIntoView({ block: 'center' });
    field.focus();
  };
}
