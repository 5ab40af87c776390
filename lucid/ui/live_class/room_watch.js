// The class panel's watcher (lucid.ui.live_class.room_watch): takes the question the player read
// (room_events.js, which starts this module), shows its card at once (the question asked, or its answer once
// revealed: no server run needed) and reruns the class panel's fragment, whose run draws the form or the verdict
// and this watcher again with that question (data.question), which hides the card.
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let sent = null;
  let card = parentElement.querySelector('.lucid-room-card');
  if (!card) {
    card = document.createElement('div');
    card.className = 'lucid-room-card';
    card.setAttribute('role', 'status');
    card.setAttribute('aria-live', 'polite');
    parentElement.appendChild(card);
  }
  const words = data.words || {};
  const show = (q, info) => {
    // Our own words with the card's label and numbers put in as text (never as HTML).
    const open = q && info && q === sent && q !== data.question;
    const text = !open ? '' : (info.answer !== undefined ? words.revealed : words.asked) || '';
    card.textContent = text.replace('{label}', String(info && info.label || ''))
      .replace('{step}', String(info && info.step || '')).replace('{answer}', String(info && info.answer || ''));
    card.hidden = !card.textContent;
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
  return () => window.removeEventListener(ROOM_QUESTION, take);
}
